/**
 * The layers of a timeline request that is listed and presented afresh (as after any write), timed in process
 * on a data directory bench/social-timelines.ts seeded: CPU µs per call of each step the home and hashtag
 * routes take. (The whole request is bench/social-timelines.ts's: fastify's inject adds its own cost for a
 * 37 KB answer, several times the route's, so it cannot split a request.)
 *
 *   BENCH_DATA_DIR=/tmp/seeded node bench/social-timelines-layers.ts
 */
import fs from 'node:fs';
import { openBenchServer } from './social-timelines/server.ts';

const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir || !fs.existsSync(`${dataDir}/bench-social-seeded.json`)) {
  console.error(
    'usage: BENCH_DATA_DIR=<a directory bench/social-timelines.ts seeded> node bench/social-timelines-layers.ts',
  );
  process.exit(2);
}
const HASHTAG = 'homeport';
const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);

/** CPU µs per call of `fn` over `n` calls, after a warm-up (the process's own CPU clock). */
async function cpuPerCall(n: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(n, 300); i++) await fn();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const after = process.cpuUsage(before);
  return (after.user + after.system) / n;
}

const { social, http } = await openBenchServer(dataDir, async () => {});
await http.ready();
social.setDomain('127.0.0.1:3000');
const ctx = social.context;
const { store } = ctx;
const me = store.accounts.byHandle('owner', null)!;
const tagIds = { anyTagIds: store.statuses.tagIds([HASHTAG]), allTagIds: [], noneTagIds: [] };
const page = { limit: 20 };
const home = () => store.timelines.home(store.timelines.scope(me.id), page);
const tag = () => store.timelines.tag(store.timelines.scope(me.id), tagIds, page);
const homeRows = store.read(home);
const tagRows = store.read(tag);
/** A page presented as text in one read transaction, its rows from `list` (a listing, or rows listed before). */
const presented = (list: () => typeof homeRows, context: 'home' | 'public') => () =>
  store.read(() =>
    ctx.statusPresenter.presentText(
      list().map((r) => r.status),
      me,
      { context },
    ),
  );
const tagPage = presented(tag, 'public');
const homePage = presented(home, 'home');
const { ownerToken } = JSON.parse(fs.readFileSync(`${dataDir}/bench-social-seeded.json`, 'utf8')) as {
  ownerToken: string;
};
/**
 * The median µs of one call of `fn`, optionally each call after an injected request for the kept home page: the
 * same work costs more when other requests' work ran in between (in the server every page is made between other
 * requests), which a loop of calls back to back does not show. Wall time of the synchronous call (its median,
 * robust to the odd preemption): process.cpuUsage around one call also counts V8's and SQLite's other threads.
 */
async function medianCall(fn: () => unknown, between: boolean): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    if (between)
      await http.inject({ url: '/api/v1/timelines/home', headers: { authorization: `Bearer ${ownerToken}` } });
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return times.sort((a, b) => a - b)[CALLS >> 1];
}
/** A setting this bench writes (and removes at the end): any write empties what is kept under the write stamp. */
const PROBE_SETTING = 'bench_layers_probe';
/**
 * The median µs of one call of `fn` right after a write: what a page costs when it is read after a post, a
 * favourite or a follow anywhere (the viewers' scopes, authors, counters and flags kept under the write stamp are
 * read again), which a page at a new address with nothing written does not show.
 */
async function medianAfterWrite(fn: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    store.transaction(() => store.settings.set(PROBE_SETTING, String(i)));
    await store.durable();
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return times.sort((a, b) => a - b)[CALLS >> 1];
}
/** An account the owner follows, posting with the bench's hashtag: its posts land on both pages. */
const followedId = String(
  store.db.prepare('SELECT target_account_id FROM follows WHERE account_id = ? LIMIT 1').pluck().get(me.id),
);
const followed = store.accounts.byIds([followedId])[0]!;
const posted: string[] = [];
/**
 * The median µs of one call of `fn` right after a real post (through the status service, its cost excluded) by
 * an account the owner follows: the page lists the new post and reads its author's counters again, while the
 * other authors, counters and flags are kept (they are kept through writes to other rows). The posts are removed
 * at the end.
 */
async function medianAfterPost(fn: () => unknown): Promise<number> {
  const times: number[] = [];
  const poster = { account: followed, user: store.users.byAccountId(followed.id), applicationId: null };
  for (let i = 0; i < CALLS; i++) {
    const result = ctx.statuses.post(poster, { text: `after a write ${i} #${HASHTAG}`, visibility: 'public' });
    if (result.kind === 'status') posted.push(result.status.id);
    await store.durable();
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return times.sort((a, b) => a - b)[CALLS >> 1];
}
const rows: [string, number][] = [
  ['write stamp (cacheStamp, outside a read)', await cpuPerCall(CALLS * 5, () => store.cacheStamp())],
  // What the request hooks ask before the handler (IP blocks, the bearer token's rows): one statement each.
  [
    'IP block and credential stamps (outside a read)',
    await cpuPerCall(CALLS * 5, () => [store.ipBlockStamp(), store.credentialStamp()]),
  ],
  ['read transaction (BEGIN, COMMIT)', await cpuPerCall(CALLS * 5, () => store.read(() => 0))],
  // The first statement of a read takes SQLite's WAL read lock: the stamp pays it, what follows does not.
  ['read transaction with its stamp', await cpuPerCall(CALLS * 5, () => store.read(() => store.cacheStamp()))],
  [
    'hashtag: its tag ids by name (read with stamp)',
    await cpuPerCall(CALLS * 5, () =>
      store.read(() => {
        store.cacheStamp();
        return [store.statuses.tagIds([HASHTAG]), store.statuses.tagIds([]), store.statuses.tagIds([])];
      }),
    ),
  ],
  ['viewer scope (kept while nothing is written)', await cpuPerCall(CALLS * 5, () => store.timelines.scope(me.id))],
  ['home listing (rows cached)', await cpuPerCall(CALLS, () => store.read(home))],
  ['hashtag listing (rows cached)', await cpuPerCall(CALLS, () => store.read(tag))],
  [
    'filters.visible (home page)',
    await cpuPerCall(CALLS, () => ctx.filters.visible(me, homeRows, (r) => r.status, 'home')),
  ],
  [
    'presentText (home page)',
    await cpuPerCall(
      CALLS,
      presented(() => homeRows, 'home'),
    ),
  ],
  [
    'presentText (hashtag page)',
    await cpuPerCall(
      CALLS,
      presented(() => tagRows, 'public'),
    ),
  ],
  ['hashtag page (listing, text): median call, back to back', await medianCall(tagPage, false)],
  ['the same, each call after a kept home request', await medianCall(tagPage, true)],
  ['the same, each call after a write', await medianAfterWrite(tagPage)],
  ['home page (listing, text), each call after a write', await medianAfterWrite(homePage)],
  ['hashtag page, each call after a post on it', await medianAfterPost(tagPage)],
  ['home page, each call after a post on it', await medianAfterPost(homePage)],
];
store.transaction(() => store.settings.delete(PROBE_SETTING));
// Removed outright (every table referring to a status cascades): a deleted post's tombstone would stay in the
// hashtag's listing, which then steps over thousands of them in later runs.
store.transaction(() => {
  for (const id of posted) store.db.prepare('DELETE FROM statuses WHERE id = ?').run(id);
});
for (const [name, us] of rows) console.log(`${name.padEnd(56)} ${us.toFixed(1).padStart(8)} µs`);
await http.close();
await social.close();

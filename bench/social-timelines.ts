/**
 * Social server read and write speed over loopback HTTP, with autocannon.
 *
 *   node bench/social-timelines.ts            (or: npm run bench:social)
 *   BENCH_STATUSES=20000 BENCH_SECONDS=5 node bench/social-timelines.ts
 *   BENCH_DATA_DIR=/tmp/seeded node bench/social-timelines.ts     (seeds once, reuses it afterwards)
 *   BENCH_SERVER_NODE_FLAGS=--cpu-prof BENCH_ENDPOINTS=home node bench/social-timelines.ts   (profile the server)
 *
 * 1. Seeds a data directory through the social server's own services (the code the API runs): 200
 *    accounts, 200,000 statuses with hashtags, mentions, links, replies and reblogs; the owner follows 150
 *    accounts, every other account follows a few, so posting fans out to home feeds as it does in use.
 * 2. Starts the social server in a child process (the general API rate limit off, everything else as
 *    served), plus an empty fastify route on the same server: the ceiling of this HTTP stack.
 * 3. Runs autocannon with 50 connections against: the empty route, a fixed body as large as the home page (the
 *    size ceiling), the owner's home timeline, a hashtag timeline (both read again: kept answers, as while
 *    nothing is written), the same two at an address new each time (listed and presented for every request, as
 *    after a write) and status creation, and reports requests/s,
 *    p50 and p99 latency, each endpoint as a fraction of both ceilings, and the server's CPU per request. Every
 *    endpoint is measured in rounds (BENCH_ROUNDS, 3), each read compared with the ceilings measured just
 *    before it (posts after all reads); medians are reported with ranges. Targets (issue 31): home / hashtag
 *    timeline <= 250 / 300 µs server CPU per request and >= 25 % of the size ceiling; posting <= 1 ms server
 *    CPU per post with p99 < 100 ms (group commit: posts per commit and per sync of the WAL printed, and the server's
 *    longest event-loop stall and event-loop delay p99 of each round: p99 comes from when one turn holds every other
 *    request).
 * 4. Splits each timeline's CPU per request, measured in the same run: the size ceiling's CPU per request, the
 *    page's own work (listing, filters, text) timed in the server process, and the rest (the API's hooks, routing,
 *    headers); and prints its floor: the size ceiling plus SQLite's bare listing plus joining finished texts.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { writeGroupsOf, writerCheckpointsOf } from '../server/db/index.ts';
import type { Social } from '../server/social/index.ts';
import { ACCOUNTS, OWNER_FOLLOWS, seed, STATUSES } from './social-timelines/seed.ts';
import { openBenchServer, serverProcess } from './social-timelines/server.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Rounds of every read measurement (medians reported). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CEILING = 'empty fastify route (ceiling)';
const HOME = 'GET home timeline';
const TAG = 'GET hashtag timeline';
// The same pages at an address new to the server each time (an unknown parameter): never a kept answer, so the
// page is listed and presented for every request, as after a write.
const HOME_NEW = 'GET home timeline, not kept';
const TAG_NEW = 'GET hashtag timeline, not kept';
const POST = 'POST status';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const HASHTAG = 'homeport';
/** Which endpoints to measure besides the ceiling: home, tag, home-new, tag-new, post (all by default). */
const ENDPOINTS = (process.env.BENCH_ENDPOINTS ?? 'home,tag,home-new,tag-new,post').split(',');

/** The server side (child process): the social server plus an empty route, on a free loopback port. */
async function serve(dataDir: string): Promise<void> {
  const { social, http } = await openBenchServer(dataDir, async (app) => {
    app.get('/bench/empty', async () => ({}));
    // A fixed JSON body of N bytes: the ceiling for moving a response as large as a timeline page.
    const bodies = new Map<number, string>();
    app.get<{ Params: { n: string } }>('/bench/bytes/:n', async (req, reply) => {
      const n = Math.min(Number(req.params.n), 1_000_000);
      let body = bodies.get(n);
      if (!body) bodies.set(n, (body = `["${'x'.repeat(Math.max(0, n - 4))}"]`));
      return reply.type('application/json; charset=utf-8').send(body);
    });
    // The server's CPU time so far (CPU per request does not depend on how busy the machine is), and
    // the write groups committed so far (writes per commit: how many posts shared one fsync).
    // The event loop's longest stall since the last call (the source of p99 when one request's turn holds the rest).
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    // The other causes of a long turn, beside it: garbage collection's pauses and the WAL emptied on the loop.
    const gc = { count: 0, totalMs: 0, longestMs: 0, longestMajorMs: 0 };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gc.count++;
        gc.totalMs += entry.duration;
        gc.longestMs = Math.max(gc.longestMs, entry.duration);
        if ((entry as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR)
          gc.longestMajorMs = Math.max(gc.longestMajorMs, entry.duration);
      }
    }).observe({ entryTypes: ['gc'] });
    app.get('/bench/cpu', async () => {
      const longestStallMs = loop.max / 1e6;
      const delayP99Ms = loop.percentile(99) / 1e6;
      loop.reset();
      const checkpoints = { ...writerCheckpointsOf(social.db) };
      Object.assign(writerCheckpointsOf(social.db), { count: 0, totalMs: 0, longestMs: 0 });
      const gcSince = { ...gc };
      Object.assign(gc, { count: 0, totalMs: 0, longestMs: 0, longestMajorMs: 0 });
      return {
        checkpoints,
        gc: gcSince,
        ...process.cpuUsage(),
        commits: social.context.store.groupsCommitted,
        syncs: writeGroupsOf(social.db)?.syncs ?? 0,
        longestStallMs,
        delayP99Ms,
      };
    });
    app.post<{ Body: { body: string } }>('/bench/floor', async (req) => floor(dataDir, social, req.body.body));
  });
  await http.listen({ host: '127.0.0.1', port: 0 });
  const port = (http.server.address() as { port: number }).port;
  social.setDomain(`127.0.0.1:${port}`);
  process.stdout.write(`listening ${port}\n`);
  const stop = async () => {
    await http.close();
    await social.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
}

/** CPU µs per call of `fn`, over `n` calls (the server process's own CPU clock: load on the machine does not count). */
function cpuPerCall(n: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(n, 500); i++) fn();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const after = process.cpuUsage(before);
  return (after.user + after.system) / n;
}

/**
 * What a timeline page costs besides moving its bytes (the size ceiling), measured in the server process:
 * - SQLite's own cost of the page's listing: the query the home and hashtag timelines run for a viewer who hides
 *   nobody, in one read transaction, bare, on a second connection (status rows are cached by version: not read),
 *   its parameter out of the planner's sight as the listings bind it (a bare one is compiled again at every run);
 * - joining the page's finished per-status texts into one answer;
 * - the page's whole work as the routes do it (listing, filters, presenting as text, one read transaction),
 *   through the social server's own services: what the endpoint adds beyond these is HTTP (hooks, routing, headers).
 */
function floor(dataDir: string, social: Social, homeBody: string) {
  const db = new Database(path.join(dataDir, 'social.db'), { readonly: true });
  try {
    db.defaultSafeIntegers(true);
    const owner = (
      db.prepare("SELECT id FROM accounts WHERE username = 'owner' AND domain IS NULL").get() as {
        id: bigint;
      }
    ).id;
    const tag = (db.prepare('SELECT id FROM tags WHERE name = ?').get(HASHTAG) as { id: bigint }).id;
    const begin = db.prepare('BEGIN');
    const commit = db.prepare('COMMIT');
    const listed = (listing: Database.Statement<[bigint]>, key: bigint) => () => {
      begin.run();
      listing.all(key);
      commit.run();
    };
    const home = db.prepare(
      `SELECT s.id, s.updated_at AS version, f.status_id AS cursor FROM home_feed f JOIN statuses s ON s.id = f.status_id
        WHERE f.account_id = +? AND s.deleted_at IS NULL ORDER BY f.status_id DESC LIMIT 20`,
    );
    const hashtag = db.prepare(
      `SELECT s.id, s.updated_at AS version, st.status_id AS cursor FROM statuses_tags st JOIN statuses s INDEXED BY statuses_public_listing ON s.id = st.status_id
        WHERE st.tag_id = +? AND s.deleted_at IS NULL AND s.visibility = 'public' AND s.reblog_of_id IS NULL
        ORDER BY st.status_id DESC LIMIT 20`,
    );
    const parts = (JSON.parse(homeBody) as unknown[]).map((s) => JSON.stringify(s));
    const ctx = social.context;
    const me = ctx.store.accounts.byId(String(owner))!;
    const page = { limit: 20 };
    const presented = (list: () => ReturnType<typeof ctx.store.timelines.home>, context: 'home' | 'public') => () =>
      ctx.store.read(() => {
        const shown = ctx.filters.visible(me, list(), (r) => r.status, context);
        return ctx.statusPresenter.presentText(
          shown.map((r) => r.status),
          me,
          { context },
        );
      });
    const tagIds = { anyTagIds: [String(tag)], allTagIds: [], noneTagIds: [] };
    return {
      homeListing: cpuPerCall(5_000, listed(home, owner)),
      tagListing: cpuPerCall(5_000, listed(hashtag, tag)),
      // Joining finished texts into one, then into the bytes a socket writes (as a response does).
      assembly: cpuPerCall(5_000, () => Buffer.byteLength(`[${parts.join(',')}]`)),
      homePage: cpuPerCall(
        2_000,
        presented(() => ctx.store.timelines.home(ctx.store.timelines.scope(me.id), page), 'home'),
      ),
      tagPage: cpuPerCall(
        2_000,
        presented(() => ctx.store.timelines.tag(ctx.store.timelines.scope(me.id), tagIds, page), 'public'),
      ),
    };
  } finally {
    db.close();
  }
}

function startChild(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const flags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return serverProcess([...flags, import.meta.filename, 'serve', dataDir]);
}

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Server CPU time (user + system) per request, in microseconds. */
  cpuPerRequest: number;
  /** Requests per committed write group (writes only; each group is one COMMIT and one fsync). */
  writesPerCommit: number | null;
  /** Requests per sync of the WAL (off the event loop; one covers the groups committed while the previous ran). */
  writesPerSync: number | null;
  /** The server's event-loop delay p99 during the run, in ms. */
  delayP99Ms: number;
  /** The server's longest event-loop stall during the run, in ms. */
  longestStallMs: number;
  /** The machine's 1-minute load average at the end of the run (CPU per request is read beside it). */
  load: number;
  /** The WAL emptied by the writer's connection on the event loop during the run (TRUNCATE checkpoints). */
  checkpoints: Pauses;
  /** Garbage collection's pauses during the run. */
  gc: Pauses & { longestMajorMs: number };
}

interface Pauses {
  count: number;
  totalMs: number;
  longestMs: number;
}

interface ServerCounters {
  cpu: number;
  commits: number;
  syncs: number;
  longestStallMs: number;
  delayP99Ms: number;
  checkpoints: Pauses;
  gc: Pauses & { longestMajorMs: number };
}

async function serverCpu(base: string): Promise<ServerCounters> {
  const usage = (await (await fetch(`${base}/bench/cpu`)).json()) as Omit<ServerCounters, 'cpu'> & {
    user: number;
    system: number;
  };
  return { ...usage, cpu: usage.user + usage.system };
}

async function measure(base: string, name: string, options: autocannon.Options): Promise<Measured> {
  // A short warm-up (JIT, SQLite page cache), then the measured run.
  await autocannon({ ...options, duration: 2 });
  const before = await serverCpu(base);
  const r = await autocannon({ ...options, duration: SECONDS });
  const after = await serverCpu(base);
  const cpu = after.cpu - before.cpu;
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    cpuPerRequest: cpu / Math.max(1, r.requests.total),
    writesPerCommit: after.commits > before.commits ? r.requests.total / (after.commits - before.commits) : null,
    writesPerSync: after.syncs > before.syncs ? r.requests.total / (after.syncs - before.syncs) : null,
    longestStallMs: after.longestStallMs,
    load: os.loadavg()[0],
    delayP99Ms: after.delayP99Ms,
    // Reset by each read: `after` holds what happened since `before`.
    checkpoints: after.checkpoints,
    gc: after.gc,
  };
}

async function main(): Promise<void> {
  const dataDir = process.env.BENCH_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-social-'));
  fs.mkdirSync(dataDir, { recursive: true });
  const seeded = await seed(dataDir);
  const { child, port } = await startChild(dataDir);
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${seeded.ownerToken}` };
  try {
    const home = await fetch(`${base}/api/v1/timelines/home`, { headers: auth });
    const homeBody = await home.text();
    const page = JSON.parse(homeBody) as unknown[];
    if (home.status !== 200 || page.length !== 20)
      throw new Error(`home timeline check failed: ${home.status}, ${page.length} statuses`);
    const common = { connections: CONNECTIONS, pipelining: 1 };
    const wanted = (name: string) => ENDPOINTS.includes(name);
    const bytes = Buffer.byteLength(homeBody);
    const sizeName = `fixed ${(bytes / 1024).toFixed(0)} KB body (size ceiling)`;
    // Rounds of ceiling, size ceiling and the read endpoints back to back: each endpoint is compared with the
    // ceiling of its own round (this machine's speed drifts by half between minutes), and the medians reported.
    const rounds: Map<string, Measured>[] = [];
    let fresh = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const measured = new Map<string, Measured>();
      const add = (m: Measured) => measured.set(m.name, m);
      add(await measure(base, CEILING, { ...common, url: `${base}/bench/empty` }));
      add(await measure(base, sizeName, { ...common, url: `${base}/bench/bytes/${bytes}` }));
      if (wanted('home'))
        add(await measure(base, HOME, { ...common, url: `${base}/api/v1/timelines/home`, headers: auth }));
      if (wanted('tag'))
        add(
          await measure(base, TAG, {
            ...common,
            url: `${base}/api/v1/timelines/tag/${HASHTAG}`,
            headers: auth,
          }),
        );
      const addressNew = (name: string, path: string) =>
        measure(base, name, {
          ...common,
          url: `${base}${path}`,
          headers: auth,
          requests: [{ setupRequest: (req) => ({ ...req, path: `${path}?bench=${fresh++}` }) }],
        });
      if (wanted('home-new')) add(await addressNew(HOME_NEW, '/api/v1/timelines/home'));
      if (wanted('tag-new')) add(await addressNew(TAG_NEW, `/api/v1/timelines/tag/${HASHTAG}`));
      rounds.push(measured);
    }
    let n = 0;
    // Posting changes what the timelines show: measured after every read round, once per round.
    for (let round = 0; wanted('post') && round < ROUNDS; round++) {
      rounds[round].set(
        POST,
        await measure(base, POST, {
          ...common,
          url: `${base}/api/v1/statuses`,
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                body: JSON.stringify({ status: `bench post ${n++} #${HASHTAG} @user7 https://example.org/${n}` }),
              }),
            },
          ],
        }),
      );
    }
    const median = (values: number[]) => {
      const sorted = [...values].sort((x, y) => x - y);
      return sorted.length % 2
        ? sorted[(sorted.length - 1) / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    };
    const names = [...new Set(rounds.flatMap((r) => [...r.keys()]))];
    const results = names.map((name) => {
      const runs = rounds.flatMap((r) => {
        const m = r.get(name);
        return m ? [{ m, ceiling: r.get(CEILING)!.rps, size: r.get(sizeName)!.rps }] : [];
      });
      return {
        name,
        rps: median(runs.map((x) => x.m.rps)),
        p50: median(runs.map((x) => x.m.p50)),
        p99: median(runs.map((x) => x.m.p99)),
        ofCeiling: median(runs.map((x) => x.m.rps / x.ceiling)),
        ofCeilingRange: [
          Math.min(...runs.map((x) => x.m.rps / x.ceiling)),
          Math.max(...runs.map((x) => x.m.rps / x.ceiling)),
        ],
        ofSize: median(runs.map((x) => x.m.rps / x.size)),
        cpuPerRequest: median(runs.map((x) => x.m.cpuPerRequest)),
        cpuRange: [Math.min(...runs.map((x) => x.m.cpuPerRequest)), Math.max(...runs.map((x) => x.m.cpuPerRequest))],
        p99Range: [Math.min(...runs.map((x) => x.m.p99)), Math.max(...runs.map((x) => x.m.p99))],
        writesPerCommit: median(runs.map((x) => x.m.writesPerCommit ?? 0)),
        writesPerSync: median(runs.map((x) => x.m.writesPerSync ?? 0)),
        stalls: runs.map((x) => x.m.longestStallMs),
        loads: runs.map((x) => x.m.load),
        delaysP99: runs.map((x) => x.m.delayP99Ms),
        checkpoints: runs.map((x) => x.m.checkpoints),
        gc: runs.map((x) => x.m.gc),
        errors: runs.reduce((sum, x) => sum + x.m.errors, 0),
        non2xx: runs.reduce((sum, x) => sum + x.m.non2xx, 0),
        rounds: runs.length,
      };
    });
    const pct = (x: number) => `${(x * 100).toFixed(1)}`;
    console.log(
      `\n${STATUSES} statuses, ${ACCOUNTS} accounts, owner follows ${OWNER_FOLLOWS}; ${CONNECTIONS} connections, ${SECONDS} s per endpoint and round, ${ROUNDS} rounds, ${os.cpus().length} cores`,
    );
    console.log(
      '(medians over rounds; "of ceiling" compares each round with its own ceiling, its range in brackets)\n',
    );
    console.log(
      'endpoint                          req/s      p50 ms   p99 ms   of ceiling              of size ceiling   server CPU/req [range]   errors/non-2xx   load per round',
    );
    for (const r of results) {
      const range = r.rounds > 1 ? `[${pct(r.ofCeilingRange[0])}-${pct(r.ofCeilingRange[1])}]` : '';
      const cpuRange = r.rounds > 1 ? `[${r.cpuRange[0].toFixed(0)}-${r.cpuRange[1].toFixed(0)}]` : '';
      console.log(
        `${r.name.padEnd(32)} ${r.rps.toFixed(0).padStart(7)}   ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}   ${pct(r.ofCeiling).padStart(6)} % ${range.padEnd(13)}   ${pct(r.ofSize).padStart(9)} %   ${r.cpuPerRequest.toFixed(0).padStart(8)} µs ${cpuRange.padEnd(13)} ${`${r.errors}/${r.non2xx}`.padEnd(16)} ${r.loads.map((x) => x.toFixed(1)).join(' / ')}`,
      );
    }
    console.log(`(size ceiling: the same HTTP stack answering a fixed body as large as the home page, ${bytes} bytes)`);
    // Each timeline row split and against its floor, measured in the same run: the size ceiling's CPU (moving as
    // many bytes through the same HTTP stack), the page's own work in process, and the bare SQLite listing and join.
    const floors = (await (
      await fetch(`${base}/bench/floor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body: homeBody }),
      })
    ).json()) as { homeListing: number; tagListing: number; assembly: number; homePage: number; tagPage: number };
    const sizeCpu = results.find((r) => r.name === sizeName)!.cpuPerRequest;
    console.log('');
    for (const [name, listing, pageWork, kept] of [
      [HOME, floors.homeListing, 0, null],
      [TAG, floors.tagListing, 0, null],
      [HOME_NEW, floors.homeListing, floors.homePage, HOME],
      [TAG_NEW, floors.tagListing, floors.tagPage, TAG],
    ] as const) {
      const r = results.find((x) => x.name === name);
      if (!r) continue;
      const limit = sizeCpu + listing + floors.assembly;
      const rest = r.cpuPerRequest - sizeCpu - pageWork;
      // The same address's kept answer runs the same hooks, token check and routing: its cost over the size
      // ceiling is theirs, and what is left is the page's work costing more in the server than in process.
      const keptRow = results.find((x) => x.name === kept);
      const conventions = keptRow ? keptRow.cpuPerRequest - sizeCpu : null;
      console.log(
        pageWork === 0
          ? `${name}: ${r.cpuPerRequest.toFixed(0)} µs = ${sizeCpu.toFixed(0)} µs size ceiling + ${rest.toFixed(0)} µs the API's HTTP conventions (hooks, routing, headers) and the kept answer's checks`
          : `${name}: ${r.cpuPerRequest.toFixed(0)} µs = ${sizeCpu.toFixed(0)} µs size ceiling + ${pageWork.toFixed(0)} µs the page's reads and text (in process) + ${rest.toFixed(0)} µs the rest${conventions !== null ? `: ${conventions.toFixed(0)} µs the API's HTTP conventions (hooks, routing, headers: the kept row over the size ceiling) and ${(rest - conventions).toFixed(0)} µs the page's work in the server beyond its in-process figure` : ' (hooks, routing, headers)'}`,
      );
      console.log(
        `  floor ${limit.toFixed(0)} µs = ${sizeCpu.toFixed(0)} µs size ceiling + ${listing.toFixed(1)} µs SQLite's bare listing + ${floors.assembly.toFixed(1)} µs joining the page; the endpoint is ${(r.cpuPerRequest / limit).toFixed(2)}x it`,
      );
    }
    const target = (name: string, ok: (r: (typeof results)[number]) => boolean, what: string) => {
      const r = results.find((x) => x.name === name);
      if (r) console.log(`${name} target (${what}): ${ok(r) ? 'met' : 'NOT met'}`);
    };
    target(
      HOME,
      (r) => r.cpuPerRequest <= 250 && r.ofSize >= 0.25,
      '<= 250 µs server CPU, >= 25 % of the size ceiling',
    );
    target(TAG, (r) => r.cpuPerRequest <= 300 && r.ofSize >= 0.25, '<= 300 µs server CPU, >= 25 % of the size ceiling');
    target(
      HOME_NEW,
      (r) => r.cpuPerRequest <= 250 && r.ofSize >= 0.25,
      '<= 250 µs server CPU, >= 25 % of the size ceiling',
    );
    target(
      TAG_NEW,
      (r) => r.cpuPerRequest <= 300 && r.ofSize >= 0.25,
      '<= 300 µs server CPU, >= 25 % of the size ceiling',
    );
    const post = results.find((r) => r.name === POST);
    if (post) {
      console.log(
        `${POST}: ${post.writesPerCommit.toFixed(1)} posts per commit, ${post.writesPerSync.toFixed(1)} per sync of the WAL (off the event loop); p99 over rounds ${post.p99Range[0].toFixed(0)}-${post.p99Range[1].toFixed(0)} ms; the server's longest event-loop stall per round ${post.stalls.map((x) => x.toFixed(0)).join(' / ')} ms, event-loop delay p99 ${post.delaysP99.map((x) => x.toFixed(0)).join(' / ')} ms; load average ${os.loadavg()[0].toFixed(1)}`,
      );
      const pauses = (list: Pauses[]) =>
        list.map((p) => `${p.count} (${p.totalMs.toFixed(0)} ms, longest ${p.longestMs.toFixed(0)} ms)`).join(' / ');
      console.log(
        `${POST}: per round, the WAL emptied on the event loop ${pauses(post.checkpoints)}; garbage collections ${pauses(post.gc)}, longest major ${post.gc.map((g) => g.longestMajorMs.toFixed(0)).join(' / ')} ms`,
      );
      target(POST, (r) => r.cpuPerRequest <= 1000 && r.p99 < 100, '<= 1 ms server CPU, p99 < 100 ms');
    }
    if (results.some((r) => r.errors > 0 || r.non2xx > 0)) process.exitCode = 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    if (!process.env.BENCH_DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') await serve(process.argv[3]);
else await main();

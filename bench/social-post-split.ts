/**
 * Where one POST /api/v1/statuses spends its time, statement by statement, in process (issue 31's posting row).
 *
 *   BENCH_DATA_DIR=/tmp/seeded node bench/social-post-split.ts          (seeds it first, as bench:social does)
 *   BENCH_STATUSES=20000 BENCH_DATA_DIR=/tmp/seeded-20k node bench/social-post-split.ts
 *   BENCH_POSTS=3000 BENCH_CONCURRENCY=16 …
 *
 * The seeded directory is copied to a temporary one first (the posts do not grow the seed, so runs compare). The
 * social server runs in this process and takes posts through its real route (fastify's inject: no sockets), as
 * many at a time as BENCH_CONCURRENCY (the benchmark's 50 connections put about 16 posts in each write group).
 * Every SQLite statement the process runs is timed (better-sqlite3's Statement methods, `exec` and `pragma`,
 * wrapped before the server opens), and the split printed: µs per post of each statement, calls per post,
 * µs per call, with SQLite's query plan where it scans or sorts without an index; beside it the process's CPU per
 * post (all of it: HTTP, JSON, fan-out, SQL) and the social database's page cache against its size.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { writerCheckpointsOf } from '../server/db/index.ts';
import { createHttpServer } from '../server/http/index.ts';
import { openSocial } from '../server/social/index.ts';
import { benchLogger, seed, STATUSES } from './social-timelines/seed.ts';

const POSTS = Number(process.env.BENCH_POSTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP = Math.min(500, Math.floor(POSTS / 4));

interface Timing {
  calls: number;
  /** CPU µs of the main thread inside the calls (wall time counts the other processes of a loaded machine). */
  us: number;
}
const timings = new Map<string, Timing>();
let recording = false;

/** The main thread's CPU µs so far (user + system). */
const threadCpu = () => {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
};

/** Wraps a method of better-sqlite3's classes so each call's CPU time is added to its SQL text's tally. */
function timed<T extends object>(proto: T, method: string, sqlOf: (self: T, args: unknown[]) => string): void {
  const original = (proto as Record<string, (...args: unknown[]) => unknown>)[method];
  (proto as Record<string, unknown>)[method] = function (this: T, ...args: unknown[]) {
    if (!recording) return original.apply(this, args);
    const start = threadCpu();
    try {
      return original.apply(this, args);
    } finally {
      const sql = sqlOf(this, args);
      let t = timings.get(sql);
      if (!t) timings.set(sql, (t = { calls: 0, us: 0 }));
      t.calls++;
      t.us += threadCpu() - start;
    }
  };
}

const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();
const statementProto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Database.Statement & {
  source: string;
};
const sqlText = new WeakMap<object, string>();
const sourceOf = (s: { source: string }) => {
  let text = sqlText.get(s);
  if (text === undefined) sqlText.set(s, (text = oneLine(s.source)));
  return text;
};
for (const method of ['run', 'get', 'all']) timed(statementProto, method, (s) => sourceOf(s));
// An iterator's rows are read after `iterate` returns: timed as a whole (rows drawn inside the caller's loop).
timed(statementProto, 'iterate', (s) => `${sourceOf(s)} [iterate: first step only]`);
timed(Database.prototype, 'exec', (_db, args) => `exec: ${oneLine(String(args[0]))}`);
timed(Database.prototype, 'pragma', (_db, args) => `pragma ${oneLine(String(args[0]))}`);

async function main(): Promise<void> {
  const seedDir = process.env.BENCH_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-post-seed-'));
  fs.mkdirSync(seedDir, { recursive: true });
  const seeded = await seed(seedDir);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-post-'));
  fs.cpSync(seedDir, dataDir, { recursive: true });
  const log = benchLogger();
  const social = await openSocial({ dataDir, logger: log, domain: 'localhost:0', generalRateLimit: false });
  // An experiment: the social database's page cache at another size (MiB).
  if (process.env.BENCH_CACHE_MIB) social.db.pragma(`cache_size = -${Number(process.env.BENCH_CACHE_MIB) * 1024}`);
  const http = await createHttpServer({
    logger: log,
    rendererDir: null,
    plugins: [{ name: 'social', plugin: social.plugin }],
  });
  await http.ready();
  const headers = { authorization: `Bearer ${seeded.ownerToken}`, 'content-type': 'application/json' };
  let n = 0;
  const post = async () => {
    const i = n++;
    const res = await http.inject({
      method: 'POST',
      url: '/api/v1/statuses',
      headers,
      payload: JSON.stringify({ status: `bench post ${i} #homeport @user7 https://example.org/${i}` }),
    });
    if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
  };
  const run = async (count: number) => {
    for (let done = 0; done < count; done += CONCURRENCY)
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count - done) }, post));
  };
  try {
    await run(WARMUP);
    // CPU per post without the statement timing, then the same number of posts timed statement by statement.
    const cpuBefore = process.cpuUsage();
    const wallBefore = process.hrtime.bigint();
    await run(POSTS);
    const cpu = process.cpuUsage(cpuBefore);
    const wallNs = Number(process.hrtime.bigint() - wallBefore);
    const commitsBefore = social.context.store.groupsCommitted;
    recording = true;
    const timedCpuBefore = process.cpuUsage();
    await run(POSTS);
    const timedCpu = process.cpuUsage(timedCpuBefore);
    recording = false;
    const commits = social.context.store.groupsCommitted - commitsBefore;
    // What reading the clock twice costs: taken off each call's tally.
    const clockStart = threadCpu();
    for (let i = 0; i < 20_000; i++) threadCpu();
    const clockCost = (threadCpu() - clockStart) / 20_000;
    const db = social.db;
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    const pages = Number(db.pragma('page_count', { simple: true }));
    const cacheSize = Number(db.pragma('cache_size', { simple: true }));
    const cacheBytes = cacheSize < 0 ? -cacheSize * 1024 : cacheSize * pageSize;
    const rows = [...timings.entries()]
      .map(([sql, t]) => ({ sql, calls: t.calls, us: t.us - t.calls * clockCost }))
      .sort((a, b) => b.us - a.us);
    const sqlUs = rows.reduce((sum, r) => sum + r.us, 0);
    const calls = rows.reduce((sum, r) => sum + r.calls, 0);
    const cpuPerPost = (cpu.user + cpu.system) / POSTS;
    console.log(
      `\n${STATUSES} statuses seeded; ${POSTS} posts, ${CONCURRENCY} at a time, ${(POSTS / commits).toFixed(1)} per commit; load ${os.loadavg()[0].toFixed(1)}`,
    );
    console.log(
      `process CPU per post ${cpuPerPost.toFixed(0)} µs (wall ${(wallNs / 1000 / POSTS).toFixed(0)} µs); timed: ${((timedCpu.user + timedCpu.system) / POSTS).toFixed(0)} µs of which SQLite statements ${(sqlUs / POSTS).toFixed(0)} µs (main thread CPU; ${clockCost.toFixed(2)} µs of clock reading taken off each call)`,
    );
    console.log(
      `${(calls / POSTS).toFixed(1)} statements per post; social.db ${((pages * pageSize) / 2 ** 20).toFixed(0)} MiB, page cache ${(cacheBytes / 2 ** 20).toFixed(1)} MiB (cache_size ${cacheSize})\n`,
    );
    const emptied = writerCheckpointsOf(db);
    console.log(
      `the WAL emptied on the event loop (TRUNCATE past 64 MiB) ${emptied.count} times since the start, ${emptied.totalMs.toFixed(0)} ms in all (wall), the longest ${emptied.longestMs.toFixed(0)} ms\n`,
    );
    console.log('µs/post   calls/post   µs/call   statement');
    for (const r of rows.slice(0, Number(process.env.BENCH_TOP ?? 40))) {
      console.log(
        `${(r.us / POSTS).toFixed(1).padStart(7)}   ${(r.calls / POSTS).toFixed(2).padStart(10)}   ${(r.us / r.calls).toFixed(1).padStart(7)}   ${r.sql.slice(0, 220)}`,
      );
    }
    // The plans of the statements that cost most: a SCAN of a big table or a temporary b-tree is what grows with it.
    console.log('\nquery plans of the costliest statements (SCAN or TEMP B-TREE marked !):');
    for (const r of rows.slice(0, 15)) {
      if (!/^(SELECT|INSERT|UPDATE|DELETE|WITH)/i.test(r.sql)) continue;
      let plan: { detail: string }[];
      try {
        // Parameters bound to null: without ANALYZE the plan does not depend on the values.
        const named = [...new Set(r.sql.match(/[@:$][A-Za-z_]\w*/g) ?? [])];
        const statement = db.prepare(`EXPLAIN QUERY PLAN ${r.sql}`);
        plan = (
          named.length
            ? statement.all(Object.fromEntries(named.map((k) => [k.slice(1), null])))
            : statement.all(...Array.from({ length: (r.sql.match(/\?/g) ?? []).length }, () => null))
        ) as { detail: string }[];
      } catch (err) {
        console.log(`  (no plan: ${(err as Error).message}) ${r.sql.slice(0, 100)}`);
        continue;
      }
      const marked = plan.map((p) => `${/SCAN|TEMP B-TREE/.test(p.detail) ? '!' : ' '}${p.detail}`);
      console.log(`  ${r.sql.slice(0, 100)}\n      ${marked.join('\n      ')}`);
    }
  } finally {
    await http.close();
    await social.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (!process.env.BENCH_DATA_DIR) fs.rmSync(seedDir, { recursive: true, force: true });
  }
}

await main();

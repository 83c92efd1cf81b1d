/**
 * Two versions of the social server side by side on one seeded data directory, measured in alternating short
 * bursts (A, B, A, B…) so both meet the same load on a shared machine: the server CPU per request of each
 * timeline read at an address new each time (listed and presented afresh, as after a write), and B's ratio to A.
 *
 *   BENCH_DATA_DIR=/tmp/seeded node bench/social-timelines-pairs.ts <checkout A> <checkout B>
 *   BENCH_PAIRS=8 BENCH_BURST_SECONDS=2 BENCH_PATHS=/api/v1/timelines/home node bench/social-timelines-pairs.ts …
 *
 * Each checkout's own bench/social-timelines.ts serves it (its `serve` mode); the data directory must have been
 * seeded by bench/social-timelines.ts. When B brings a migration A does not know (A would refuse the upgraded
 * file), give B a copy of the seeded directory of its own: BENCH_DATA_DIR_B=<copy>. Prints per path the median CPU per request of each side over the pairs,
 * the median of the per-pair ratios B/A with their range, and the machine's load average.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { serverProcess } from './social-timelines/server.ts';

const [checkoutA, checkoutB] = process.argv.slice(2);
const dataDir = process.env.BENCH_DATA_DIR;
if (!checkoutA || !checkoutB || !dataDir || !fs.existsSync(path.join(dataDir, 'bench-social-seeded.json'))) {
  console.error(
    'usage: BENCH_DATA_DIR=<seeded directory> node bench/social-timelines-pairs.ts <checkout A> <checkout B>',
  );
  process.exit(2);
}
const PAIRS = Number(process.env.BENCH_PAIRS ?? 8);
const BURST = Number(process.env.BENCH_BURST_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PATHS = (process.env.BENCH_PATHS ?? '/api/v1/timelines/home,/api/v1/timelines/tag/homeport').split(',');
const { ownerToken } = JSON.parse(fs.readFileSync(path.join(dataDir, 'bench-social-seeded.json'), 'utf8')) as {
  ownerToken: string;
};

async function serve(checkout: string, dir: string): Promise<{ child: ChildProcess; base: string }> {
  const { child, port } = await serverProcess([path.join(checkout, 'bench/social-timelines.ts'), 'serve', dir]);
  return { child, base: `http://127.0.0.1:${port}` };
}

async function cpuOf(base: string): Promise<number> {
  const u = (await (await fetch(`${base}/bench/cpu`)).json()) as { user: number; system: number };
  return u.user + u.system;
}

let fresh = 0;
/** Server CPU µs per request of one burst at `base`, every request at a new address. */
async function burst(base: string, route: string, seconds: number): Promise<number> {
  const options: autocannon.Options = {
    url: `${base}${route}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${ownerToken}` },
    requests: [
      { setupRequest: (req) => ({ ...req, path: `${route}${route.includes('?') ? '&' : '?'}bench=${fresh++}` }) },
    ],
  };
  const before = await cpuOf(base);
  const r = await autocannon(options);
  const after = await cpuOf(base);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${base}${route}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return (after - before) / Math.max(1, r.requests.total);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const a = await serve(checkoutA, dataDir);
const b = await serve(checkoutB, process.env.BENCH_DATA_DIR_B ?? dataDir);
try {
  for (const route of PATHS) {
    // Warm-up of both (JIT, SQLite's page cache), then the pairs; the side going first alternates.
    await burst(a.base, route, 2);
    await burst(b.base, route, 2);
    const pairs: { a: number; b: number; load: number }[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0 ? a : b;
      const second = first === a ? b : a;
      const x = await burst(first.base, route, BURST);
      const y = await burst(second.base, route, BURST);
      pairs.push(first === a ? { a: x, b: y, load: os.loadavg()[0] } : { a: y, b: x, load: os.loadavg()[0] });
    }
    const ratios = pairs.map((p) => p.b / p.a);
    console.log(
      `${route}: A ${median(pairs.map((p) => p.a)).toFixed(0)} µs, B ${median(pairs.map((p) => p.b)).toFixed(0)} µs server CPU per request (medians of ${PAIRS} pairs of ${BURST} s); B/A ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}]; load ${pairs.map((p) => p.load.toFixed(1)).join(' ')}`,
    );
  }
} finally {
  for (const side of [a, b]) {
    side.child.kill('SIGTERM');
    await new Promise((resolve) => side.child.once('exit', resolve));
  }
}

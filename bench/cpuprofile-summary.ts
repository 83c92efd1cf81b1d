/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, e.g. BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/p'):
 * the top functions by self time with their share of the sampled time, idle excluded, and the shares of
 * garbage collection and of the project's own code (server/) against libraries and Node's internals.
 *
 *   node bench/cpuprofile-summary.ts <file.cpuprofile | dir>... [top=25] [from-s] [to-s]
 *
 * Several files (a glob such as /tmp/p/*.cpuprofile, or a directory: its .cpuprofile files) are the threads of
 * one run, the main thread and its workers, each profiled to its own file: each is listed on a line of its
 * own (its busy time and its busy ms per second, to find the measured window), then their samples are summed
 * into one table, the share of each thread's code beside the total.
 *
 * from-s / to-s keep only the samples taken in that window, in seconds since the earliest profile started
 * (one clock for every thread of the run), e.g. a benchmark's measured window without the server's start-up.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const numbers = args.filter((a) => /^\d+(\.\d+)?$/.test(a));
const files = args
  .filter((a) => !numbers.includes(a))
  .flatMap((a) =>
    fs.statSync(a).isDirectory()
      ? fs
          .readdirSync(a)
          .filter((f) => f.endsWith('.cpuprofile'))
          .sort()
          .map((f) => path.join(a, f))
      : [a],
  );
if (files.length === 0) {
  console.error('usage: node bench/cpuprofile-summary.ts <file.cpuprofile | dir>... [top=25] [from-s] [to-s]');
  process.exit(2);
}
const [topArg, fromArg, toArg] = numbers;
const profiles = files.map((file) => ({ file, profile: JSON.parse(fs.readFileSync(file, 'utf8')) as Profile }));
const origin = Math.min(...profiles.map((p) => p.profile.startTime));
const from = Number(fromArg ?? 0) * 1e6;
const to = toArg === undefined ? Number.POSITIVE_INFINITY : Number(toArg) * 1e6;

const where = (n: ProfileNode) => {
  const url = n.callFrame.url;
  if (!url) return '';
  const rel = url.includes('/node_modules/')
    ? url.slice(url.lastIndexOf('/node_modules/') + 14)
    : url.startsWith('file://')
      ? path.relative(process.cwd(), new URL(url).pathname)
      : url;
  return `${rel}:${n.callFrame.lineNumber + 1}`;
};

interface Totals {
  busy: number;
  idle: number;
  gc: number;
  own: number;
  libraries: number;
}
const byFunction = new Map<string, number>();
const all: Totals = { busy: 0, idle: 0, gc: 0, own: 0, libraries: 0 };
const perThread: { file: string; totals: Totals; busyPerSecond: number[] }[] = [];

for (const { file, profile } of profiles) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals: Totals = { busy: 0, idle: 0, gc: 0, own: 0, libraries: 0 };
  /** Busy (not idle) µs per second since the earliest profile started. */
  const busyPerSecond: number[] = [];
  let at = profile.startTime - origin;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const node = byId.get(profile.samples[i])!;
    const name = node.callFrame.functionName || '(anonymous)';
    const idle = name === '(idle)';
    if (!idle) busyPerSecond[Math.floor(at / 1e6)] = (busyPerSecond[Math.floor(at / 1e6)] ?? 0) + delta;
    if (at < from || at >= to) continue;
    if (idle) {
      totals.idle += delta;
      continue;
    }
    totals.busy += delta;
    if (name === '(garbage collector)') totals.gc += delta;
    if (node.callFrame.url.includes('/node_modules/')) totals.libraries += delta;
    else if (node.callFrame.url.includes('/server/')) totals.own += delta;
    const key = `${name} ${where(node)}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
  }
  for (const k of Object.keys(all) as (keyof Totals)[]) all[k] += totals[k];
  perThread.push({ file, totals, busyPerSecond });
}

const share = (v: number, of: number) => `${of === 0 ? '0.0' : ((v / of) * 100).toFixed(1)}%`;
const line = (name: string, t: Totals) =>
  `${name}: ${(t.busy / 1e6).toFixed(2)} s sampled busy (${(t.idle / 1e6).toFixed(2)} s idle); ` +
  `GC ${share(t.gc, t.busy)}, server/ code ${share(t.own, t.busy)}, node_modules ${share(t.libraries, t.busy)}, ` +
  'the rest Node internals and natives';
for (const { file, totals, busyPerSecond } of perThread) {
  console.log(line(file, totals));
  console.log(`  busy ms per second: ${Array.from(busyPerSecond, (v) => Math.round((v ?? 0) / 1000)).join(' ')}`);
}
if (perThread.length > 1)
  console.log(
    `${line(`all ${perThread.length} profiles, summed`, all)}\n  by profile: ${perThread
      .map(({ file, totals }) => `${path.basename(file)} ${share(totals.busy, all.busy)}`)
      .join(', ')}`,
  );
const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25));
for (const [key, micros] of top) console.log(`${share(micros, all.busy).padStart(6)}  ${key}`);

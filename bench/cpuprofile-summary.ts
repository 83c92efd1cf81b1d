/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/p'):
 * the top functions by self time with their share of the sampled time, idle excluded, and the shares of
 * garbage collection and of the project's own code (server/) against libraries and Node's internals.
 *
 *   node bench/cpuprofile-summary.ts <file.cpuprofile> [top=25] [from-s] [to-s]
 *
 * from-s / to-s keep only the samples taken in that window (seconds since the profile started), e.g. a
 * benchmark's measured window without the server's start-up; the busy time per second is printed to find it.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, fromArg, toArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpuprofile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const from = Number(fromArg ?? 0) * 1e6;
const to = toArg === undefined ? Number.POSITIVE_INFINITY : Number(toArg) * 1e6;
const selfMicros = new Map<number, number>();
/** Busy (not idle) µs per second of the profile. */
const busyPerSecond: number[] = [];
let at = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  const id = profile.samples[i];
  const second = Math.floor(at / 1e6);
  if (byId.get(id)!.callFrame.functionName !== '(idle)') busyPerSecond[second] = (busyPerSecond[second] ?? 0) + delta;
  if (at >= from && at < to) selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
}
console.log(`busy ms per second: ${Array.from(busyPerSecond, (v) => Math.round((v ?? 0) / 1000)).join(' ')}`);

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

const byFunction = new Map<string, number>();
let total = 0;
let idle = 0;
let gc = 0;
let own = 0;
let libraries = 0;
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!;
  const name = node.callFrame.functionName || '(anonymous)';
  if (name === '(idle)') {
    idle += micros;
    continue;
  }
  total += micros;
  if (name === '(garbage collector)') gc += micros;
  if (node.callFrame.url.includes('/node_modules/')) libraries += micros;
  else if (node.callFrame.url.includes('/server/')) own += micros;
  const key = `${name} ${where(node)}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}

const pct = (v: number) => `${((v / total) * 100).toFixed(1)}%`;
console.log(
  `${file}: ${(total / 1e6).toFixed(2)} s sampled busy (${(idle / 1e6).toFixed(2)} s idle); ` +
    `GC ${pct(gc)}, server/ code ${pct(own)}, node_modules ${pct(libraries)}, the rest Node internals and natives`,
);
const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25));
for (const [key, micros] of top) console.log(`${pct(micros).padStart(6)}  ${key}`);

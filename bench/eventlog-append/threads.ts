/**
 * The server process's CPU split by thread, from /proc/<pid>/task/<tid>/stat (Linux): which part of the CPU per
 * event is the main thread (JavaScript, better-sqlite3's SQLite calls and the fsyncs they make, socket syscalls),
 * libuv's pool, V8's platform threads (GC helpers, concurrent compilation) and worker threads (the WAL
 * checkpointer). Node names neither V8's platform threads nor worker threads (both show as `node`), so they are
 * told apart by creation order: V8's (Node's default pool of 4) start right after the main thread, before any JavaScript.
 */
import fs from 'node:fs';

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times. */
const CLOCK_TICKS_PER_SECOND = 100;

interface ThreadTimes {
  comm: string;
  /** CPU seconds in user and kernel mode so far. */
  user: number;
  system: number;
}

export interface ThreadSnapshot {
  pid: number;
  /** The whole process (exited threads included): user and system seconds. */
  process: { user: number; system: number };
  threads: Map<number, ThreadTimes>;
}

function timesOf(stat: string): { user: number; system: number } {
  // Fields 14 and 15 (utime, stime), counted after the command's closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLOCK_TICKS_PER_SECOND, system: Number(fields[12]) / CLOCK_TICKS_PER_SECOND };
}

export function snapshotThreads(pid: number): ThreadSnapshot {
  const threads = new Map<number, ThreadTimes>();
  for (const entry of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      threads.set(Number(entry), { comm, ...timesOf(stat) });
    } catch {
      // The thread ended between the listing and the read: the process total still counts it.
    }
  }
  return { pid, process: timesOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')), threads };
}

export type ThreadClass = 'main' | 'libuv pool' | 'V8 platform' | 'worker threads' | 'exited/other';

/** Node's default `--v8-pool-size`: V8's platform threads (GC helpers, concurrent compilation). */
const V8_PLATFORM_THREADS = 4;

function classify(pid: number, threads: Map<number, ThreadTimes>): Map<number, ThreadClass> {
  const classes = new Map<number, ThreadClass>();
  // V8's platform threads are the first unnamed threads after main (created before any JavaScript runs).
  const unnamed = [...threads].filter(([tid, t]) => tid !== pid && t.comm === 'node').map(([tid]) => tid);
  unnamed.sort((a, b) => a - b);
  for (const [tid, t] of threads) {
    if (tid === pid) classes.set(tid, 'main');
    else if (t.comm === 'DelayedTaskSche') classes.set(tid, 'V8 platform');
    else if (t.comm.startsWith('libuv-worker')) classes.set(tid, 'libuv pool');
    else if (t.comm !== 'node') classes.set(tid, 'exited/other');
    else classes.set(tid, unnamed.indexOf(tid) < V8_PLATFORM_THREADS ? 'V8 platform' : 'worker threads');
  }
  return classes;
}

export interface ThreadSplitRow {
  thread: ThreadClass;
  /** CPU µs per unit (event) in user and kernel mode. */
  user: number;
  system: number;
}

/** CPU per unit between two snapshots of the same process, by class of thread; the rows sum to the process's. */
export function threadSplit(before: ThreadSnapshot, after: ThreadSnapshot, units: number): ThreadSplitRow[] {
  const classes = classify(after.pid, after.threads);
  const sums = new Map<ThreadClass, { user: number; system: number }>();
  const add = (cls: ThreadClass, user: number, system: number) => {
    const sum = sums.get(cls) ?? { user: 0, system: 0 };
    sum.user += user;
    sum.system += system;
    sums.set(cls, sum);
  };
  let user = 0;
  let system = 0;
  for (const [tid, t] of after.threads) {
    const was = before.threads.get(tid) ?? { user: 0, system: 0 };
    const cls = classes.get(tid)!;
    add(cls, t.user - was.user, t.system - was.system);
    user += t.user - was.user;
    system += t.system - was.system;
  }
  add(
    'exited/other',
    after.process.user - before.process.user - user,
    after.process.system - before.process.system - system,
  );
  const order: ThreadClass[] = ['main', 'libuv pool', 'V8 platform', 'worker threads', 'exited/other'];
  return order
    .filter((cls) => sums.has(cls))
    .map((cls) => ({
      thread: cls,
      user: (sums.get(cls)!.user / units) * 1e6,
      system: (sums.get(cls)!.system / units) * 1e6,
    }));
}

/** One line: "main 40.1+12.0, libuv pool 0.0+0.0, …" (user+system µs per unit). */
export function formatThreadSplit(rows: ThreadSplitRow[]): string {
  return rows.map((r) => `${r.thread} ${r.user.toFixed(1)}+${r.system.toFixed(1)}`).join(', ');
}

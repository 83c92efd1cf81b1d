/**
 * Where the soak server's resident memory lives, from /proc/<pid>/smaps (Linux): what the JS heap after a
 * collection does not explain. Each mapping is classed by what it holds; RSS is the sum of the classes.
 * - js heap: anonymous mappings V8 reserves for its heap (none of these are told apart from malloc's by the
 *   kernel, so V8's share comes from the inspector instead; see `other anon` below);
 * - brk heap ([heap]): the main thread's malloc arena;
 * - arenas: glibc's per-thread malloc arenas, 64 MiB-aligned reservations of 64 MiB (a mapping and its
 *   inaccessible rest), counted and summed: worker threads that allocate make more of them;
 * - stacks: [stack] and the thread stacks (an anonymous mapping right above a one-page inaccessible guard);
 * - sqlite files: the *.db / -wal / -shm mappings (SQLite maps only -shm unless mmap_size is set);
 * - code: file-backed mappings of the binaries and libraries;
 * - other anon: the rest of anonymous memory: V8's heap and code space, and what large mallocs map on their own.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface MemorySplit {
  /** Resident bytes per class (see the module comment). */
  brkHeap: number;
  arenas: number;
  arenaCount: number;
  stacks: number;
  threads: number;
  sqliteFiles: number;
  code: number;
  otherAnon: number;
  /** Sizes on disk of the data directory's SQLite files (main file, WAL), by name. */
  files: Record<string, number>;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rss: number;
}

const ARENA_BYTES = 64n * 1024n * 1024n;

function readMappings(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  let current: Mapping | null = null;
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      current = {
        start: BigInt(`0x${header[1]}`),
        end: BigInt(`0x${header[2]}`),
        perms: header[3],
        name: header[4],
        rss: 0,
      };
      mappings.push(current);
    } else if (current && line.startsWith('Rss:')) {
      current.rss = Number(line.split(/\s+/)[1]) * 1024;
    }
  }
  return mappings;
}

export function memorySplit(pid: number, dataDir: string): MemorySplit {
  const mappings = readMappings(pid);
  const split: MemorySplit = {
    brkHeap: 0,
    arenas: 0,
    arenaCount: 0,
    stacks: 0,
    threads: 0,
    sqliteFiles: 0,
    code: 0,
    otherAnon: 0,
    files: {},
  };
  for (let i = 0; i < mappings.length; i++) {
    const m = mappings[i];
    if (m.name === '[heap]') split.brkHeap += m.rss;
    else if (m.name === '[stack]') split.stacks += m.rss;
    else if (/\.db(-wal|-shm)?( \(deleted\))?$/.test(m.name)) split.sqliteFiles += m.rss;
    else if (m.name.startsWith('/') || m.name.startsWith('[v')) split.code += m.rss;
    else if (m.name === '' && m.start % ARENA_BYTES === 0n && m.perms.startsWith('rw')) {
      // A glibc arena: the used part, then (maybe) its inaccessible rest, 64 MiB in all.
      const rest = mappings[i + 1];
      const joined =
        rest && rest.start === m.end && rest.name === '' && rest.perms.startsWith('---') ? rest.end : m.end;
      if (joined - m.start === ARENA_BYTES) {
        split.arenas += m.rss;
        split.arenaCount++;
        if (joined !== m.end) i++;
      } else split.otherAnon += m.rss;
    } else if (m.name === '' && m.perms.startsWith('rw') && i > 0) {
      // A thread stack sits right above its guard page (inaccessible, one page or more).
      const guard = mappings[i - 1];
      if (
        guard.end === m.start &&
        guard.perms.startsWith('---') &&
        guard.name === '' &&
        guard.end - guard.start <= 65536n
      )
        split.stacks += m.rss;
      else split.otherAnon += m.rss;
    } else split.otherAnon += m.rss;
  }
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  split.threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  for (const name of fs.readdirSync(dataDir, { recursive: true, encoding: 'utf8' })) {
    if (/\.db(-wal)?$/.test(name)) split.files[path.basename(name)] = fs.statSync(path.join(dataDir, name)).size;
  }
  return split;
}

import { spawn } from 'node:child_process';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { eventlogMigrations } from './migrations.ts';
import { SqliteEventStore } from './sqlite-store.ts';
import { ADMIN, event, events, openTestStore, silentLogger, type TestStore } from './testing/store.ts';
import { ExpectedVersion, StoreBusyError, StoreNotReadyError, type CommittedBatch } from './types.ts';

const { Any, NoStream } = ExpectedVersion;
const START = { commitPosition: 0, preparePosition: 0 };

let t: TestStore;
afterEach(async () => {
  await t.close();
});

const label = (e: { streamId: string; eventNumber: number }) => `${e.streamId}#${e.eventNumber}`;

describe('group commit', () => {
  it('commits every request waiting at once in one transaction; a wrong version fails alone', async () => {
    t = openTestStore();
    await t.store.appendToStream('s', NoStream, events(1), null);
    const batches: CommittedBatch[] = [];
    t.store.onCommitted((b) => batches.push(b));
    const results = await Promise.all([
      t.store.appendToStream('s', 0, events(1), null),
      t.store.appendToStream('s', 0, events(1), null),
      t.store.appendToStream('t', NoStream, events(1), null),
      t.store.appendToStream('s', 1, events(1), null),
      t.store.deleteStream('u', 5, false, null),
      t.store.appendToStream('$all', Any, events(1), null),
      t.store.appendToStream('t', 0, events(1), null),
    ]);
    expect(results.map((r) => r.result)).toEqual([
      'Success',
      'WrongExpectedVersion',
      'Success',
      'Success',
      'WrongExpectedVersion',
      'AccessDenied',
      'Success',
    ]);
    expect(results[1]).toMatchObject({ currentVersion: 1 });
    expect(batches).toHaveLength(1);
    expect(batches[0].events.map(label)).toEqual(['s#1', 't#0', 's#2', 't#1']);
    const positions = batches[0].events.map((e) => e.commitPosition);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(t.store.readStreamForward('s', 0, 10, false, null).events.map((e) => e.event!.eventNumber)).toEqual([
      0, 1, 2,
    ]);
  });

  it('fails the whole group at once when the database cannot take writes (disk full), instead of retrying request by request', async () => {
    t = openTestStore();
    let runs = 0;
    const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () =>
        t.store.runSystemWrite(() => {
          runs++;
          throw diskFull();
        }),
      ),
    );
    expect(
      results.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'SQLITE_FULL'),
    ).toBe(true);
    // One transaction tried, not one per request (which stalls every client for seconds on a full disk).
    expect(runs).toBe(1);
    // The store goes on once writes can succeed again.
    expect((await t.store.appendToStream('after', NoStream, events(1), null)).result).toBe('Success');
  });

  it('an unexpected error in one request rolls back only that request', async () => {
    t = openTestStore();
    const results = await Promise.allSettled([
      t.store.appendToStream('a', NoStream, events(2), null),
      t.store.runSystemWrite((w) => {
        w.append('b', Any, events(1));
        throw new Error('boom');
      }),
      t.store.appendToStream('a', 1, events(1), null),
    ]);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { result: 'Success', lastEventNumber: 1 } });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: new Error('boom') });
    expect(results[2]).toMatchObject({ status: 'fulfilled', value: { result: 'Success', lastEventNumber: 2 } });
    expect(t.store.readStreamForward('b', 0, 10, false, null).result).toBe('NoStream');
    const all = t.store.readAllForward(START, 100, false, ADMIN).events.map((e) => label(e.event!));
    expect(all).toEqual(['a#0', 'a#1', 'a#2']);
  });

  it('refuses requests past the queue bound with StoreBusyError and accepts again once drained', async () => {
    t = openTestStore({ limits: { maxQueuedRequests: 3 } });
    const settled = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => t.store.appendToStream(`s${i}`, Any, events(1), null)),
    );
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    expect((settled[3] as PromiseRejectedResult).reason).toBeInstanceOf(StoreBusyError);
    expect((await t.store.appendToStream('later', Any, events(1), null)).result).toBe('Success');
  });

  it('splits a large backlog over several commits', async () => {
    t = openTestStore({ limits: { maxBatchEvents: 10 } });
    let commits = 0;
    t.store.onCommitted(() => commits++);
    const results = await Promise.all(
      Array.from({ length: 30 }, () => t.store.appendToStream('s', Any, events(1), null)),
    );
    expect(results.map((r) => r.lastEventNumber)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(commits).toBe(3);
  });

  it('resolves a write only when another connection can already read it', async () => {
    t = openTestStore();
    const reader = new BetterSqlite3(t.file, { readonly: true });
    try {
      const seen = await t.store.appendToStream('s', Any, events(3), null).then(
        (r) =>
          (
            reader.prepare('SELECT COUNT(*) AS n FROM events WHERE position <= ?').get(r.commitPosition) as {
              n: number;
            }
          ).n,
      );
      expect(seen).toBe(3);
    } finally {
      reader.close();
    }
  });

  it('tells onCommitted listeners about deletions and keeps going when a listener throws', async () => {
    t = openTestStore();
    await t.store.appendToStream('soft', NoStream, events(1), null);
    await t.store.appendToStream('hard', NoStream, events(1), null);
    const batches: CommittedBatch[] = [];
    t.store.onCommitted(() => {
      throw new Error('listener bug');
    });
    const off = t.store.onCommitted((b) => batches.push(b));
    const [soft, hard] = await Promise.all([
      t.store.deleteStream('soft', Any, false, null),
      t.store.deleteStream('hard', Any, true, null),
    ]);
    expect([soft.result, hard.result]).toEqual(['Success', 'Success']);
    expect(batches).toHaveLength(1);
    expect(batches[0].deleted).toEqual([
      { streamId: 'soft', hard: false },
      { streamId: 'hard', hard: true },
    ]);
    expect(batches[0].events.map((e) => `${e.streamId}:${e.eventType}`)).toEqual([
      '$$soft:$metadata',
      'hard:$streamDeleted',
    ]);
    await t.store.appendToStream('by-hand', Any, events(1), null);
    await t.store.appendToStream('$$by-hand', Any, [event('$metadata', { $tb: Number.MAX_SAFE_INTEGER })], null);
    expect(batches[2].deleted).toEqual([{ streamId: 'by-hand', hard: false }]);
    off();
    await t.store.appendToStream('x', Any, events(1), null);
    expect(batches).toHaveLength(3);
  });

  it('finishes queued writes on close, then refuses new ones', async () => {
    t = openTestStore();
    const pending = Promise.all(Array.from({ length: 20 }, () => t.store.appendToStream('s', Any, events(1), null)));
    const closing = t.store.close();
    await expect(t.store.appendToStream('s', Any, events(1), null)).rejects.toBeInstanceOf(StoreNotReadyError);
    expect((await pending).every((r) => r.result === 'Success')).toBe(true);
    await closing;
    expect(() => t.store.readEvent('s', 0, false, null)).toThrow(StoreNotReadyError);
    const store = t.reopen();
    expect(store.lastEventNumber('s')).toBe(19);
  });
});

describe('durability', () => {
  it('keeps positions increasing across restarts', async () => {
    t = openTestStore();
    await t.store.appendToStream('s', Any, events(3), null);
    const before = t.store.lastCommitPosition();
    await t.store.close();
    const store = t.reopen();
    expect(store.lastCommitPosition()).toBe(before);
    const r = await store.appendToStream('s', 2, events(1), null);
    expect(r.commitPosition).toBeGreaterThan(before);
  });

  it('loses no acknowledged event when the writing process is killed (SIGKILL) mid-stream', async () => {
    t = openTestStore();
    await t.store.close();
    const acked = new Map<string, { stream: string; number: number; position: number }>();
    for (let round = 0; round < 2; round++) {
      const child = spawn(process.execPath, [path.join(import.meta.dirname, 'testing', 'crash-writer.ts'), t.dir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let buffer = '';
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', () => resolve());
        let count = 0;
        child.stdout.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let nl;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            const [kind, stream, number, position, id] = line.split(' ');
            if (kind !== 'ack') continue;
            acked.set(id, { stream, number: Number(number), position: Number(position) });
            if (++count === 400) child.kill('SIGKILL');
          }
        });
      });
    }
    const store = t.reopen();
    const all = store.readAllForward(START, 4096, false, ADMIN);
    const stored = new Map<string, { stream: string; number: number; position: number }>();
    let previous = 0;
    for (const e of all.events) {
      expect(e.commitPosition).toBeGreaterThan(previous);
      previous = e.commitPosition;
      expect(stored.has(e.event!.eventId)).toBe(false);
      stored.set(e.event!.eventId, {
        stream: e.event!.streamId,
        number: e.event!.eventNumber,
        position: e.commitPosition,
      });
    }
    expect(acked.size).toBeGreaterThanOrEqual(800);
    for (const [id, ack] of acked) expect(stored.get(id)).toEqual(ack);
    for (let s = 0; s < 5; s++) {
      const numbers = store
        .readStreamForward(`crash-${s}`, 0, 4096, false, null)
        .events.map((e) => e.event!.eventNumber);
      expect(numbers).toEqual(numbers.map((_, i) => i));
    }
  });
});

describe('another process writing to the same file (the admin CLI)', () => {
  it('is noticed: caches refresh, positions continue, listeners get its events in order', async () => {
    t = openTestStore();
    await t.store.appendToStream('x', NoStream, events(1), null);
    const seen: string[] = [];
    t.store.onCommitted((b) => seen.push(...b.events.map(label)));
    const other = new SqliteEventStore({
      db: openDatabase(t.file, { migrations: eventlogMigrations, synchronous: 'FULL' }),
      logger: silentLogger,
    });
    other.markReady();
    try {
      expect((await other.appendToStream('x', 0, events(2), null)).lastEventNumber).toBe(2);
      await other.appendToStream('y', NoStream, [event()], null);
      // The first store's cached head of x is stale until it looks again; any write or read does.
      const r = await t.store.appendToStream('x', 2, events(1), null);
      expect(r).toMatchObject({ result: 'Success', firstEventNumber: 3 });
      expect(seen).toEqual(['x#1', 'x#2', 'y#0', 'x#3']);
      const all = t.store.readAllForward(START, 100, false, ADMIN).events;
      expect(all.map((e) => label(e.event!))).toEqual(['x#0', 'x#1', 'x#2', 'y#0', 'x#3']);
      expect(new Set(all.map((e) => e.commitPosition)).size).toBe(5);
      expect(other.lastEventNumber('x')).toBe(3);
    } finally {
      await other.close();
    }
  });

  it('delivers outside commits to listeners of an idle store', async () => {
    t = openTestStore({ limits: { externalPollMs: 20 } });
    const got = new Promise<CommittedBatch>((resolve) => t.store.onCommitted(resolve));
    const other = new SqliteEventStore({
      db: openDatabase(t.file, { migrations: eventlogMigrations, synchronous: 'FULL' }),
      logger: silentLogger,
    });
    other.markReady();
    try {
      await other.appendToStream('$users', Any, events(1), ADMIN);
      expect((await got).events.map(label)).toEqual(['$users#0']);
    } finally {
      await other.close();
    }
  });
});

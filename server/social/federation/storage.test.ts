import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Temporal as TemporalPolyfill } from '@js-temporal/polyfill';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, WriteGroups, type Database } from '../../db/index.ts';
import { socialMigrations } from '../migrations/index.ts';
import { SqliteKvStore, SqliteMessageQueue, ttlMs } from '../store/index.ts';
import { duration } from './time.ts';

const dirs: string[] = [];
const open: Database[] = [];
function database(dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-fed-store-'))): { db: Database; dir: string } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'FULL' });
  db.defaultSafeIntegers(true);
  open.push(db);
  return { db, dir };
}
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('SqliteKvStore', () => {
  it("counts a time-to-live's milliseconds as Temporal's total does", () => {
    for (const fields of [
      { days: 1 },
      { hours: 36, minutes: 5, seconds: 7, milliseconds: 250 },
      { seconds: 0 },
      { milliseconds: 1, microseconds: 500 },
    ]) {
      const ttl = TemporalPolyfill.Duration.from(fields) as unknown as Temporal.Duration;
      expect(ttlMs(ttl)).toBe(ttl.total({ unit: 'millisecond' }));
    }
  });

  it('gets, sets, deletes, expires, lists by prefix and compares-and-swaps', async () => {
    let now = 1_000_000;
    const kv = new SqliteKvStore(database().db, () => now);
    await kv.set(['key', 'a'], { n: 1 });
    await kv.set(['key', 'a', 'b'], 'nested');
    await kv.set(['key', 'ab'], 'not under ["key","a"]');
    await kv.set(['other'], [1, 2]);
    expect(await kv.get(['key', 'a'])).toEqual({ n: 1 });
    expect(await kv.get(['missing'])).toBeUndefined();
    const listed = [];
    for await (const e of kv.list(['key', 'a'])) listed.push(e);
    expect(listed.sort((x, y) => x.key.length - y.key.length)).toEqual([
      { key: ['key', 'a'], value: { n: 1 } },
      { key: ['key', 'a', 'b'], value: 'nested' },
    ]);

    await kv.set(['ttl'], 'short', { ttl: duration(10_000) });
    expect(await kv.get(['ttl'])).toBe('short');
    now += 10_001;
    expect(await kv.get(['ttl'])).toBeUndefined();
    expect(kv.sweep()).toBe(1);

    expect(await kv.cas(['counter'], undefined, 1)).toBe(true);
    expect(await kv.cas(['counter'], 2, 3)).toBe(false);
    expect(await kv.cas(['counter'], 1, 2)).toBe(true);
    expect(await kv.get(['counter'])).toBe(2);
    await kv.delete(['counter']);
    expect(await kv.get(['counter'])).toBeUndefined();
  });

  it('skips a set that changes nothing (Fedify stores the same spec after every delivery), not one that refreshes a ttl', async () => {
    let now = 1_000_000;
    const { db } = database();
    const kv = new SqliteKvStore(db, () => now);
    const writes = () => Number((db.prepare('SELECT total_changes() AS n').get() as { n: bigint }).n);
    await kv.set(['spec', 'https://b.test'], 'draft-cavage-http-signatures-12');
    const before = writes();
    await kv.set(['spec', 'https://b.test'], 'draft-cavage-http-signatures-12');
    expect(writes()).toBe(before);
    await kv.set(['spec', 'https://b.test'], 'rfc9421');
    expect(writes()).toBe(before + 1);
    expect(await kv.get(['spec', 'https://b.test'])).toBe('rfc9421');

    await kv.set(['ttl'], 'same', { ttl: duration(10_000) });
    now += 9_000;
    await kv.set(['ttl'], 'same', { ttl: duration(10_000) });
    now += 9_000;
    expect(await kv.get(['ttl'])).toBe('same');
    // A ttl entry set again without one never expires.
    await kv.set(['ttl'], 'same');
    now += 100_000;
    expect(await kv.get(['ttl'])).toBe('same');
  });

  it('commits the writes of one turn together, each set resolving once on disk, reads seeing them before', async () => {
    const { db, dir } = database();
    const kv = new SqliteKvStore(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const hosts = Array.from({ length: 8 }, (_, i) => `https://peer${i}.test`);
    const sets = hosts.map((host) => kv.set(['spec', host], 'draft-cavage-http-signatures-12'));
    expect(await kv.get(['spec', hosts[0]])).toBe('draft-cavage-http-signatures-12');
    const removal = kv.delete(['spec', hosts[1]]);
    expect(await kv.get(['spec', hosts[1]])).toBeUndefined();
    await Promise.all([...sets, removal]);
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(log).toBeLessThanOrEqual(2);
    const reopened = new SqliteKvStore(database(dir).db);
    expect(await reopened.get(['spec', hosts[7]])).toBe('draft-cavage-http-signatures-12');
    expect(await reopened.get(['spec', hosts[1]])).toBeUndefined();
  });
});

/** Counts the reads (SELECT statements run) on `table` of statements prepared from now on. */
function countSelects(db: Database, table: string): { count: number } {
  const looks = { count: 0 };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    if (!/^\s*SELECT/i.test(sql) || !sql.includes(table)) return statement;
    for (const method of ['get', 'all'] as const) {
      const run = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        looks.count++;
        return run(...args);
      };
    }
    return statement;
  }) as typeof db.prepare;
  return looks;
}

describe('SqliteMessageQueue', () => {
  it('handles messages, waits out delays and keeps one message per ordering key at a time', async () => {
    const queue = new SqliteMessageQueue(database().db, { maxIdleMs: 20 });
    const seen: string[] = [];
    let active = 0;
    let maxActiveForKey = 0;
    const controller = new AbortController();
    const done = new Promise<void>((resolve) => {
      void queue.listen(
        async (m) => {
          const { name } = m as { name: string };
          if (name.startsWith('k')) {
            active++;
            maxActiveForKey = Math.max(maxActiveForKey, active);
            await new Promise((r) => setTimeout(r, 5));
            active--;
          }
          seen.push(name);
          if (seen.length === 4) resolve();
        },
        { signal: controller.signal },
      );
    });
    // Late enough for k1 and k2 to finish first on a loaded machine (a commit's fsync can take tens of ms there).
    await queue.enqueue({ name: 'late' }, { delay: duration(300) });
    await queue.enqueueMany([{ name: 'k1' }, { name: 'k2' }], { orderingKey: 'same' });
    await queue.enqueue({ name: 'now' });
    await done;
    controller.abort();
    // The last message leaves the table once its handler has returned.
    while ((await queue.getDepth()).queued > 0) await new Promise((r) => setTimeout(r, 5));
    expect(seen.at(-1)).toBe('late');
    expect(seen.indexOf('k1')).toBeLessThan(seen.indexOf('k2'));
    expect(maxActiveForKey).toBe(1);
  });

  it('keeps messages nobody handled, and a message whose handler never finished, for the next start', async () => {
    const first = database();
    const queue = new SqliteMessageQueue(first.db, { maxIdleMs: 20 });
    await queue.enqueue({ name: 'waiting' });
    await queue.enqueue({ name: 'cut short' });
    const stop = new AbortController();
    let taken = 0;
    const started = new Promise<void>((resolve) => {
      // The handlers never return: the process "dies" with both messages taken.
      void queue.listen(
        () => {
          if (++taken === 2) resolve();
          return new Promise<void>(() => {});
        },
        { signal: stop.signal },
      );
    });
    await started;
    stop.abort();
    first.db.close();

    const second = new SqliteMessageQueue(database(first.dir).db, { maxIdleMs: 20 });
    expect((await second.getDepth()).queued).toBe(2);
    const names: string[] = [];
    const controller = new AbortController();
    await new Promise<void>((resolve) => {
      void second.listen(
        (m) => {
          names.push((m as { name: string }).name);
          if (names.length === 2) resolve();
        },
        { signal: controller.signal },
      );
    });
    controller.abort();
    expect(names.sort()).toEqual(['cut short', 'waiting']);
  });

  it('counts the inbox messages it holds and their bytes (the inbox refuses beyond a bound), across a restart', async () => {
    const first = database();
    const queue = new SqliteMessageQueue(first.db, { maxIdleMs: 20 });
    const inbox = [
      { type: 'inbox', id: '1', activity: { type: 'Create', content: 'é' } },
      { type: 'inbox', id: '2', activity: { type: 'Like' } },
    ];
    await queue.enqueueMany(inbox);
    await queue.enqueue({ type: 'outbox', id: '3' }, { delay: duration(60_000) });
    const bytes = inbox.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);
    expect(queue.inboxBacklog()).toEqual({ messages: 2, bytes });
    first.db.close();

    const second = new SqliteMessageQueue(database(first.dir).db, { maxIdleMs: 20 });
    expect(second.inboxBacklog()).toEqual({ messages: 2, bytes });
    const controller = new AbortController();
    let handled = 0;
    await new Promise<void>((resolve) => {
      void second.listen(
        () => {
          if (++handled === 2) setImmediate(resolve);
        },
        { signal: controller.signal },
      );
    });
    await new Promise<void>((resolve) => {
      const check = () => (second.inboxBacklog().messages === 0 ? resolve() : setTimeout(check, 10));
      check();
    });
    controller.abort();
    expect(second.inboxBacklog()).toEqual({ messages: 0, bytes: 0 });
    expect((await second.getDepth()).queued).toBe(1);
  });

  it('reads its table twice per message as they come one at a time, not again at every wake', async () => {
    const { db } = database();
    const queue = new SqliteMessageQueue(db, { maxIdleMs: 60_000 });
    const looks = countSelects(db, 'federation_queue');
    let handled!: () => void;
    const controller = new AbortController();
    const listening = queue.listen(async () => handled(), { signal: controller.signal });
    const messages = 40;
    for (let i = 0; i < messages; i++) {
      const taken = new Promise<void>((resolve) => {
        handled = resolve;
      });
      await queue.enqueue({ name: `m${i}` });
      await taken;
      // The handler's end (its place freed) comes before the next message.
      await new Promise((resolve) => setImmediate(resolve));
    }
    controller.abort();
    await listening;
    // Per message: the due ids and the message taken; the next delayed time (none) once: 82 reads for 40 here.
    // It was read again after each look before (122), and every enqueue and every handler's end looked (242).
    expect(looks.count).toBeLessThanOrEqual(messages * 2 + 4);
  });

  it('wakes for a delayed message enqueued before the next one it knew of', async () => {
    const { db } = database();
    const queue = new SqliteMessageQueue(db, { maxIdleMs: 60_000 });
    const seen: string[] = [];
    const controller = new AbortController();
    let soon!: () => void;
    const soonHandled = new Promise<void>((resolve) => {
      soon = resolve;
    });
    const listening = queue.listen(
      (m) => {
        seen.push((m as { name: string }).name);
        if (seen.includes('soon')) soon();
      },
      { signal: controller.signal },
    );
    await queue.enqueue({ name: 'late' }, { delay: duration(60_000) });
    // The listener has looked at the delays (the late one) and sleeps until then.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await queue.enqueue({ name: 'soon' }, { delay: duration(30) });
    await soonHandled;
    controller.abort();
    await listening;
    expect(seen).toEqual(['soon']);
  });

  it('deletes the messages handled in the same turn in one commit, not one commit each', async () => {
    const { db } = database();
    const queue = new SqliteMessageQueue(db, { maxIdleMs: 20, concurrency: 8 });
    await queue.enqueueMany(Array.from({ length: 8 }, (_, i) => ({ name: `m${i}` })));
    db.pragma('wal_checkpoint(TRUNCATE)');
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let taken = 0;
    const controller = new AbortController();
    // Eight deliveries in flight together, answered at once (as a burst of 202s).
    const listening = queue.listen(
      async () => {
        if (++taken === 8) release();
        await gate;
      },
      { signal: controller.signal },
    );
    while ((await queue.getDepth()).queued > 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await listening;
    // Frames appended to the WAL since the checkpoint: one commit of the one page the deletions touch.
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(log).toBeLessThanOrEqual(2);
  });
});

describe("the queue and the key-value store in the store's write groups", () => {
  /** The social store's group commit as the server has it: a turn's writes share one COMMIT. */
  function grouped(db: Database) {
    const groups = new WriteGroups(db, { began() {}, committed() {}, failed() {} });
    return { groups, writes: { transaction: <T>(fn: () => T) => groups.write(fn), durable: () => groups.durable() } };
  }

  it('commits a turn of enqueues, deletions and cache writes together, each enqueue answered once on disk', async () => {
    const { db } = database();
    const { groups, writes } = grouped(db);
    const queue = new SqliteMessageQueue(db, { maxIdleMs: 20, writes });
    const kv = new SqliteKvStore(db, Date.now, writes);
    // Twenty inbox deliveries in one turn: one commit, and none of them answered before it.
    const committedAtAnswer: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.enqueue({ type: 'inbox', n: i }).then(() => committedAtAnswer.push(groups.commits)),
      ),
    );
    expect(committedAtAnswer).toEqual(Array(20).fill(1));
    await Promise.all(Array.from({ length: 10 }, (_, i) => kv.set(['idempotence', String(i)], true)));
    expect(groups.commits).toBe(2);
    expect(await kv.get(['idempotence', '3'])).toBe(true);
    // Handling them: the deletions go into the groups too (never a transaction of their own).
    const own = db.transaction.bind(db);
    let ownTransactions = 0;
    db.transaction = ((fn: () => unknown) => {
      ownTransactions++;
      return own(fn);
    }) as typeof db.transaction;
    const handled: number[] = [];
    const controller = new AbortController();
    const listening = queue.listen((m) => void handled.push((m as { n: number }).n), { signal: controller.signal });
    while ((await queue.getDepth()).queued > 0) await new Promise((r) => setTimeout(r, 5));
    await groups.durable();
    controller.abort();
    await listening;
    expect(handled.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(ownTransactions).toBe(0);
    expect(groups.commits).toBeGreaterThan(2);
    expect(queue.inboxBacklog()).toEqual({ messages: 0, bytes: 0 });
  });

  it('deletes deliveries finishing one by one together: a fan-out costs a few commits, not one per delivery', async () => {
    const { db } = database();
    const { groups, writes } = grouped(db);
    const queue = new SqliteMessageQueue(db, { maxIdleMs: 20, concurrency: 20, writes });
    await queue.enqueueMany(Array.from({ length: 10 }, (_, i) => ({ type: 'outbox', n: i })));
    const enqueued = groups.commits;
    // Ten deliveries answered by their servers one after the other, each in a turn of its own.
    const answers = Array.from({ length: 10 }, () => {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    let handled = 0;
    let started = 0;
    const controller = new AbortController();
    const listening = queue.listen(
      async (m) => {
        started++;
        await answers[(m as { n: number }).n].promise;
        handled++;
      },
      { signal: controller.signal },
    );
    const nextTurn = () => new Promise((r) => setImmediate(r));
    while (started < 10) await nextTurn();
    for (const answer of answers) {
      answer.resolve();
      await nextTurn();
      await nextTurn();
    }
    while ((await queue.getDepth()).queued > 0) await new Promise((r) => setTimeout(r, 5));
    await groups.durable();
    controller.abort();
    await listening;
    expect(handled).toBe(10);
    expect(groups.commits - enqueued).toBeLessThanOrEqual(2);
  });

  it('writes the cache behind: a set resolves at once, reads see it, and a burst in many turns shares a commit', async () => {
    const { db, dir } = database();
    const { groups, writes } = grouped(db);
    const kv = new SqliteKvStore(db, Date.now, writes, 25);
    // Forty deliveries to new hosts, each storing its host's signature spec in a turn of its own.
    for (let i = 0; i < 40; i++) {
      await kv.set(['spec', `https://peer${i}.test`], 'draft-cavage-http-signatures-12');
      expect(await kv.get(['spec', `https://peer${i}.test`])).toBe('draft-cavage-http-signatures-12');
      await new Promise((r) => setImmediate(r));
    }
    await kv.delete(['spec', 'https://peer3.test']);
    expect(await kv.get(['spec', 'https://peer3.test'])).toBeUndefined();
    while (groups.commits === 0 || groups.pending) await new Promise((r) => setTimeout(r, 5));
    expect(groups.commits).toBeLessThanOrEqual(2);
    kv.flush();
    await groups.durable();
    const reopened = new SqliteKvStore(database(dir).db);
    expect(await reopened.get(['spec', 'https://peer39.test'])).toBe('draft-cavage-http-signatures-12');
    expect(await reopened.get(['spec', 'https://peer3.test'])).toBeUndefined();
  });
});

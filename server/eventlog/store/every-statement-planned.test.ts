import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/index.ts';
import { bareStatements, type PreparedStatement, plannedOtherwise, statementsWhile } from '../../db/testing/index.ts';
import { SqliteEventLogTokens } from './access-tokens.ts';
import { eventlogMigrations } from './migrations.ts';
import { SqliteEventStore } from './sqlite-store.ts';
import { ADMIN, events, linkEvent, manualClock, metadataEvent, silentLogger, tempDir } from './testing/store.ts';
import { type EventFilter, ExpectedVersion } from './types.ts';
import { SqliteEventLogUsers } from './users.ts';

/*
 * Every statement the event store, its users and its access tokens prepare while they serve a broad set of calls
 * (appends, transactions, stream and `$all` reads of each kind, filtered reads, link resolution, listings,
 * deletion, scavenging, users, tokens) binds no parameter the planner reads, GLOB patterns aside: SQLite compiled
 * such a statement (every stream and `$all` read's bound LIMIT) again at every run, as better-sqlite3 clears the
 * bindings after each. And each plans as its plain text does with the same values bound.
 */

let dir: string;
let db: Database;
let store: SqliteEventStore;
let seen: PreparedStatement[];

beforeAll(async () => {
  dir = tempDir();
  db = openDatabase(path.join(dir, 'eventlog.db'), { migrations: eventlogMigrations, synchronous: 'FULL' });
  seen = await statementsWhile(db, serveCalls);
}, 30_000);

afterAll(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function serveCalls(): Promise<void> {
  const clock = manualClock();
  store = new SqliteEventStore({ db, logger: silentLogger, clock: clock.now, limits: { scavengeChunkRows: 2 } });
  store.markReady();
  const users = new SqliteEventLogUsers({ store, logger: silentLogger });
  const tokens = new SqliteEventLogTokens({ store, clock: clock.now });
  const Any = ExpectedVersion.Any;
  await store.appendToStream('orders-1', Any, events(5, 'placed'), ADMIN);
  await store.appendToStream('orders-2', Any, events(3, 'shipped'), ADMIN);
  await store.appendToStream('$$orders-2', Any, [metadataEvent({ $maxCount: 2, $maxAge: 60 })], ADMIN);
  await store.appendToStream('links', Any, [linkEvent('orders-1'), linkEvent('orders-2')], ADMIN);
  const tx = await store.startTransaction('orders-3', Any, ADMIN);
  if (tx.result !== 'Success' || tx.transactionId === undefined) throw new Error(`transaction: ${tx.result}`);
  await store.transactionWrite(tx.transactionId, events(2), ADMIN);
  await store.commitTransaction(tx.transactionId, ADMIN);
  clock.advance(30_000);

  store.readEvent('orders-1', 2, true, ADMIN);
  store.readEvent('links', 0, true, ADMIN);
  store.readStreamForward('orders-1', 0, 20, false, ADMIN);
  store.readStreamBackward('orders-1', -1, 20, false, ADMIN);
  store.readStreamForward('orders-2', 0, 20, false, ADMIN);
  store.readStreamForward('links', 0, 20, true, ADMIN);
  store.readStreamRowsForward('orders-1', 0, 20, ADMIN);
  store.readStreamRowsBackward('orders-1', -1, 20, ADMIN);
  const start = { commitPosition: 0, preparePosition: 0 };
  const end = { commitPosition: -1, preparePosition: -1 };
  store.readAllForward(start, 20, true, ADMIN);
  store.readAllBackward(end, 20, false, ADMIN);
  store.readAllRowsForward(start, 20, ADMIN);
  store.readAllRowsBackward(end, 20, ADMIN);
  const byType: EventFilter = { context: 'EventType', type: 'Prefix', data: ['ship'] };
  store.filteredReadAllForward(start, 20, 100, byType, false, ADMIN);
  store.filteredReadAllBackward(end, 20, 100, byType, false, ADMIN);
  for (const orderBy of ['created', 'updated', 'name'] as const) {
    store.listStreams({ orderBy, limit: 10, includeSystem: false, prefix: 'orders' });
  }
  store.listStreams({ orderBy: 'name', limit: 10, includeSystem: true, pattern: 'orders-*' });
  store.listStreams({ orderBy: 'name', limit: 10, includeSystem: true, pattern: 'links' });
  store.streamCategories(10);

  await store.deleteStream('orders-1', Any, false, ADMIN);
  await store.deleteStream('links', Any, true, ADMIN);
  clock.advance(60_000);
  store.scavenge(ADMIN);
  while (store.scavengeProgress() !== null) await new Promise((r) => setTimeout(r, 5));

  await users.add({ name: 'ann', password: 'secret-words', groups: ['readers'] });
  await users.authenticate('ann', 'secret-words');
  users.list();
  await users.update('ann', { fullName: 'Ann' });
  await users.setDisabled('ann', false);
  const token = await tokens.create('ann', { name: 'ci' });
  tokens.list();
  tokens.list('ann');
  tokens.authenticate(token.token);
  await tokens.revoke(token.info.id);
  await users.remove('ann');
}

describe('the statements the event store prepares', () => {
  it('are many, reads of every kind among them', () => {
    expect(seen.length).toBeGreaterThan(40);
    expect(
      seen.filter((s) => /ORDER BY e?\.?(position|event_number)( DESC)? LIMIT/.test(s.sql)).length,
    ).toBeGreaterThan(6);
  });

  it('bind no parameter the planner reads, patterns aside', () => {
    expect(bareStatements(seen)).toEqual([]);
  });

  it('plan as their plain texts do with the same values', () => {
    expect(plannedOtherwise(db, seen)).toEqual([]);
  });
});

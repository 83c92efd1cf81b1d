import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentSchemaVersion, openDatabase } from '../../db/index.ts';
import { openEventLog, type EventLog } from '../eventlog.ts';
import { eventlogMigrations } from './migrations.ts';
import { ADMIN, silentLogger, tempDir } from './testing/store.ts';
import { EVENT_NUMBER_DELETED, ExpectedVersion } from './types.ts';

let dir: string;
let log: EventLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes a log the way schema version 1 stored it (no categories, no deletion column, no users). */
function writeVersion1Log(file: string): void {
  const db = openDatabase(file, { migrations: eventlogMigrations.slice(0, 1), synchronous: 'FULL' });
  expect(currentSchemaVersion(db)).toBe(1);
  const insertStream = db.prepare(
    'INSERT INTO streams (stream_key, stream_id, last_event_number, tombstoned, event_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertEvent = db.prepare(
    'INSERT INTO events (position, commit_position, stream_key, event_number, event_id, event_type, flags, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const id = () => crypto.randomBytes(16);
  const t0 = Date.UTC(2023, 5, 1);
  db.transaction(() => {
    insertStream.run(1, 'order-1', 1, 0, 2, t0, t0 + 2);
    insertStream.run(2, '$$order-1', 0, 0, 1, t0 + 3, t0 + 3);
    insertStream.run(3, 'customer-7', 0, 1, 2, t0 + 4, t0 + 5);
    insertStream.run(4, 'plain', 0, 0, 1, t0 + 6, t0 + 6);
    insertStream.run(5, 'order-2', 0, 0, 1, t0 + 7, t0 + 7);
    insertEvent.run(1, 1, 1, 0, id(), 'OrderPlaced', 1, Buffer.from('{"n":1}'), Buffer.alloc(0), t0);
    insertEvent.run(2, 2, 1, 1, id(), 'OrderPaid', 1, Buffer.from('{"n":2}'), Buffer.alloc(0), t0 + 2);
    insertEvent.run(
      3,
      3,
      2,
      0,
      id(),
      '$metadata',
      1,
      Buffer.from('{"$tb":9223372036854775807}'),
      Buffer.alloc(0),
      t0 + 3,
    );
    insertEvent.run(4, 4, 3, 0, id(), 'CustomerJoined', 1, Buffer.from('{}'), Buffer.alloc(0), t0 + 4);
    insertEvent.run(5, 5, 3, EVENT_NUMBER_DELETED, id(), '$streamDeleted', 0, Buffer.alloc(0), Buffer.alloc(0), t0 + 5);
    insertEvent.run(6, 6, 4, 0, id(), 'Note', 0, Buffer.from('plain text'), Buffer.from('m'), t0 + 6);
    insertEvent.run(8, 9, 5, 0, id(), 'InTransaction', 1, Buffer.from('{}'), Buffer.alloc(0), t0 + 7);
    db.prepare('INSERT INTO committed_transactions (commit_position, first_position) VALUES (9, 8)').run();
    db.prepare('UPDATE log_state SET last_position = 9').run();
  })();
  db.close();
}

describe('event-log migrations', () => {
  it('brings a version-1 log to the current schema with every event intact', async () => {
    dir = tempDir();
    const file = path.join(dir, 'eventlog.db');
    writeVersion1Log(file);
    log = await openEventLog({ dataDir: dir, logger: silentLogger });
    expect(currentSchemaVersion(log.db)).toBe(eventlogMigrations.length);
    const { store } = log;

    const plain = store.readEvent('plain', 0, false, null).event!.event!;
    expect(plain).toMatchObject({
      eventType: 'Note',
      isJson: false,
      commitPosition: 6,
      preparePosition: 6,
      created: Date.UTC(2023, 5, 1) + 6,
    });
    expect(Buffer.from(plain.data).toString()).toBe('plain text');
    expect(store.readStreamForward('order-1', 0, 10, false, null)).toMatchObject({
      result: 'NoStream',
      lastEventNumber: 1,
    });
    expect(store.readStreamForward('customer-7', 0, 10, false, null).result).toBe('StreamDeleted');
    const tx = store.readEvent('order-2', 0, false, null).event!.event!;
    expect([tx.commitPosition, tx.preparePosition]).toEqual([9, 8]);

    expect(log.browser.listStreams({ orderBy: 'name', limit: 10, includeSystem: false })).toEqual([
      expect.objectContaining({ streamId: 'customer-7', deleted: 'hard', eventCount: 2 }),
      expect.objectContaining({ streamId: 'order-1', deleted: 'soft', lastEventNumber: 1 }),
      expect.objectContaining({ streamId: 'order-2', deleted: 'no' }),
      expect.objectContaining({ streamId: 'plain', deleted: 'no', createdAt: Date.UTC(2023, 5, 1) + 6 }),
    ]);
    expect(log.browser.streamCategories(10)).toEqual([
      { category: 'order', streams: 2 },
      { category: 'customer', streams: 1 },
    ]);

    // The log goes on where it stopped: the recreated stream continues its numbering, positions keep rising.
    const r = await store.appendToStream(
      'order-1',
      ExpectedVersion.Any,
      [
        {
          eventId: crypto.randomUUID(),
          eventType: 'OrderReopened',
          isJson: true,
          data: Buffer.from('{}'),
          metadata: Buffer.alloc(0),
        },
      ],
      null,
    );
    expect(r).toMatchObject({ result: 'Success', firstEventNumber: 2 });
    expect(r.commitPosition).toBeGreaterThan(9);
    // Version 3 added users: a migrated log gets the default accounts.
    expect(log.users.list().map((u) => u.name)).toEqual(['admin', 'ops']);
    expect(await log.users.authenticate('admin', 'changeit')).toEqual({ name: 'admin', groups: ['$admins'] });
    expect(
      store
        .readAllForward({ commitPosition: 0, preparePosition: 0 }, 100, false, ADMIN)
        .events.slice(0, 7)
        .map((e) => e.commitPosition),
    ).toEqual([1, 2, 3, 4, 5, 6, 9]);
  });

  it('opens an up-to-date log again without changes, and refuses a log from a newer Homeport', async () => {
    dir = tempDir();
    log = await openEventLog({ dataDir: dir, logger: silentLogger });
    await log.store.appendToStream(
      's',
      ExpectedVersion.Any,
      [
        {
          eventId: crypto.randomUUID(),
          eventType: 'e',
          isJson: false,
          data: Buffer.from('x'),
          metadata: Buffer.alloc(0),
        },
      ],
      null,
    );
    await log.close();
    log = await openEventLog({ dataDir: dir, logger: silentLogger });
    expect(log.store.lastEventNumber('s')).toBe(0);
    expect(log.users.list()).toHaveLength(2);
    log.db.pragma(`user_version = ${eventlogMigrations.length + 1}`);
    await log.close();
    log = undefined;
    await expect(openEventLog({ dataDir: dir, logger: silentLogger })).rejects.toThrow(
      /newer than this Homeport knows/,
    );
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, startBackgroundCheckpointer, WriteGroups, writerCheckpointsOf } from './index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database of one table `t (id, body)` in a directory of its own, removed after the test. */
function tableDatabase(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-ckpt-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  const db = openDatabase(file, {
    migrations: [{ version: 1, name: 't', up: (d) => d.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)') }],
    synchronous: 'FULL',
  });
  return { file, db };
}

/** The WAL header's checkpoint sequence number: SQLite adds one each time the WAL is started over (0 without a WAL). */
function checkpointSequence(file: string): number {
  const header = Buffer.alloc(16);
  let fd: number;
  try {
    fd = fs.openSync(`${file}-wal`, 'r');
  } catch {
    return 0;
  }
  try {
    return fs.readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
  } finally {
    fs.closeSync(fd);
  }
}

describe('background WAL checkpointer', () => {
  it('copies committed pages into the database file from a worker and hands checkpoints back on stop', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-ckpt-'));
    dirs.push(dir);
    const file = path.join(dir, 'test.db');
    const db = openDatabase(file, {
      migrations: [{ version: 1, name: 't', up: (d) => d.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)') }],
      synchronous: 'FULL',
    });
    db.pragma('wal_autocheckpoint = 1000');
    const checkpointer = startBackgroundCheckpointer(db, { intervalMs: 20 });
    // The writer itself no longer checkpoints.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

    const sizeBefore = fs.statSync(file).size;
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run(Buffer.alloc(1024, i));
    })();
    // The pages reach the main database file without any checkpoint on this connection.
    await vi.waitFor(() => expect(fs.statSync(file).size).toBeGreaterThan(sizeBefore + 400 * 1024), {
      timeout: 10_000,
      interval: 20,
    });

    await checkpointer.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(500);
    db.close();
  });

  it('empties the WAL past its limit under writes that never pause (a passive checkpoint alone let it grow without end)', async () => {
    const { file, db } = tableDatabase('steady.db');
    const checkpointer = startBackgroundCheckpointer(db, { intervalMs: 20, walLimitBytes: 1024 * 1024 });
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    // One small commit every turn, as the social server under a steady stream of posts: about 12 MiB of pages.
    for (let i = 0; i < 3000; i++) {
      db.transaction(() => insert.run(Buffer.alloc(2048, i)))();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const walBytes = fs.statSync(`${file}-wal`).size;
    await checkpointer.stop();
    expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(3000);
    db.close();
    // Without the RESTART past the limit the WAL held every frame written (about 37 MB here).
    expect(walBytes).toBeLessThan(12 * 1024 * 1024);
    // Each ran on the writer's connection, and is counted for the benchmarks (their pauses are a cause of p99).
    expect(writerCheckpointsOf(db).count).toBeGreaterThan(0);
  }, 120_000);

  it('starts the WAL over past its limit while a write group is open whenever the worker asks (the server never idle), reusing the file instead of cutting it', async () => {
    const { file, db } = tableDatabase('grouped.db');
    const checkpointer = startBackgroundCheckpointer(db, { intervalMs: 20, walLimitBytes: 1024 * 1024 });
    const groups = new WriteGroups(db, { began() {}, committed() {}, failed() {} });
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    // As the social server at saturation: each turn's group commits in a setImmediate, and the next write (here
    // right after that commit) opens the next group, so every message from the checkpoint worker (taken between
    // the two) finds a transaction open. The WAL reached 295 MB in 3 minutes of the soak that way. The writes go on
    // until the WAL has been started over four times (its header's checkpoint sequence number; without the
    // checkpoints, until 20,000 writes or the deadline). A TRUNCATE there cut the file to nothing on the event loop
    // (36 ms of ftruncate for 64 MB): the file must be reused as it is, never shrink.
    const restartsAtStart = checkpointSequence(file);
    let shrinks = 0;
    let last = 0;
    let written = 0;
    const deadline = Date.now() + 90_000;
    while (checkpointSequence(file) - restartsAtStart < 4) {
      if (Date.now() > deadline || written === 20_000)
        throw new Error(
          `the WAL was started over ${checkpointSequence(file) - restartsAtStart} times in ${written} writes`,
        );
      groups.write(() => insert.run(Buffer.alloc(16 * 1024, written)));
      written++;
      await new Promise((resolve) => setImmediate(resolve));
      const size = fs.statSync(`${file}-wal`).size;
      if (size < last) shrinks++;
      last = size;
    }
    await groups.durable();
    await checkpointer.stop();
    expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(written);
    db.close();
    // Started over four times, written from its start again each time: never cut.
    expect(shrinks).toBe(0);
  }, 120_000);

  it('checkpoints two databases from one worker; stopping one leaves the other checkpointed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-ckpt-'));
    dirs.push(dir);
    const open = (name: string) =>
      openDatabase(path.join(dir, name), {
        migrations: [
          { version: 1, name: 't', up: (d) => d.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)') },
        ],
        synchronous: 'FULL',
      });
    const [a, b] = [open('a.db'), open('b.db')];
    const [ca, cb] = [
      startBackgroundCheckpointer(a, { intervalMs: 20 }),
      startBackgroundCheckpointer(b, { intervalMs: 20 }),
    ];
    const grows = async (db: typeof a, rows: number) => {
      const before = fs.statSync(db.name).size;
      const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(1024, i));
      })();
      await vi.waitFor(() => expect(fs.statSync(db.name).size).toBeGreaterThan(before + (rows - 100) * 1024), {
        timeout: 10_000,
        interval: 20,
      });
    };
    await Promise.all([grows(a, 300), grows(b, 300)]);
    await ca.stop();
    expect(a.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(b.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await grows(b, 300);
    await cb.stop();
    expect(b.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    a.close();
    b.close();
  });
});

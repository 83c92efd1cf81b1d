import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryStore } from '../testing/store.ts';

/*
 * The write stamp every read cache is kept under (timeline answers, StampMemo) counts this connection's
 * writes in memory: whatever writes, through the store's statements or ones prepared elsewhere on the same
 * connection (the federation queue's), with RETURNING, by exec, or on another connection, moves it.
 */

const { db, store, remove } = temporaryStore('write-stamp');
afterAll(remove);
db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, n INTEGER)');

/** Whether `write` moved the stamp. */
function moves(write: () => void): boolean {
  const before = store.cacheStamp();
  write();
  return store.cacheStamp() !== before;
}

describe('the write stamp', () => {
  it('moves with every kind of write on this connection', () => {
    expect(moves(() => store.settings.set('stamp-test', 'a'))).toBe(true);
    expect(moves(() => db.prepare('INSERT INTO scratch (n) VALUES (?)').run(1))).toBe(true);
    expect(moves(() => db.prepare('UPDATE scratch SET n = n + 1 RETURNING n').all())).toBe(true);
    expect(moves(() => db.prepare('UPDATE scratch SET n = n + 1 RETURNING n').get())).toBe(true);
    expect(moves(() => db.exec('DELETE FROM scratch'))).toBe(true);
    expect(moves(() => store.transaction(() => db.prepare('INSERT INTO scratch (n) VALUES (2)').run()))).toBe(true);
  });

  it('moves with a write of another connection, and stays while nothing is written', () => {
    expect(moves(() => db.prepare('SELECT * FROM scratch').all())).toBe(false);
    const other = new Database(path.join(db.name));
    try {
      expect(moves(() => other.prepare('INSERT INTO scratch (n) VALUES (3)').run())).toBe(true);
    } finally {
      other.close();
    }
  });

  it('shares one data_version reading until the next microtask once asked to, moving with this connection at once', async () => {
    const other = new Database(path.join(db.name));
    try {
      store.shareDataVersion();
      const shared = store.cacheStamp();
      // Another connection's commit during the shared run counts as after it: seen from the next microtask on.
      other.prepare('INSERT INTO scratch (n) VALUES (4)').run();
      expect(store.cacheStamp()).toBe(shared);
      expect(store.credentialStamp().split(':')[0]).toBe(shared!.split(':')[0]);
      // This connection's writes move it at once, shared or not.
      expect(moves(() => db.prepare('INSERT INTO scratch (n) VALUES (5)').run())).toBe(true);
      await Promise.resolve();
      const after = store.cacheStamp();
      expect(after!.split(':')[0]).not.toBe(shared!.split(':')[0]);
      // Not shared any more: the next commit elsewhere moves it in the same run.
      expect(moves(() => other.prepare('INSERT INTO scratch (n) VALUES (6)').run())).toBe(true);
    } finally {
      other.close();
    }
  });
});

import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryStore } from '../testing/store.ts';

/*
 * The write stamp every read cache is kept under (timeline answers, StampMemo) counts this connection's
 * writes in memory: whatever writes, through the store's statements or ones prepared elsewhere on the same
 * connection (the federation queue's), with RETURNING, by exec, or on another connection (seen at the next turn of
 * the event loop: SQLite's data_version is asked once per turn), moves it.
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

  it('moves with a write of another connection (at the next turn of the event loop), and stays while nothing is written', async () => {
    expect(moves(() => db.prepare('SELECT * FROM scratch').all())).toBe(false);
    const before = store.cacheStamp();
    const other = new Database(path.join(db.name));
    try {
      other.prepare('INSERT INTO scratch (n) VALUES (3)').run();
    } finally {
      other.close();
    }
    await nextTurn();
    expect(store.cacheStamp()).not.toBe(before);
  });

  it('asks SQLite for data_version once per turn of the event loop, whichever stamps are made in it', async () => {
    await nextTurn();
    const asked = store.dataVersionReads;
    for (let i = 0; i < 3; i++) {
      store.cacheStamp();
      store.credentialStamp();
      store.accountStamp();
      store.domainPolicyStamp();
      store.ipBlockStamp();
    }
    await Promise.resolve();
    store.accountStamp();
    expect(store.dataVersionReads - asked).toBe(1);
    await nextTurn();
    store.accountStamp();
    expect(store.dataVersionReads - asked).toBe(2);
  });
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../db/index.ts';
import { SocialEvents } from './events.ts';
import { socialMigrations } from './migrations/index.ts';
import { SocialStore } from './store/index.ts';

describe('SocialEvents', () => {
  it('delivers at once outside a batch, after the outermost batch inside one', () => {
    const bus = new SocialEvents();
    const seen: string[] = [];
    bus.on('account.updated', (e) => seen.push(e.accountId));
    bus.emit('account.updated', { accountId: '1' });
    expect(seen).toEqual(['1']);
    bus.batch(() => {
      bus.emit('account.updated', { accountId: '2' });
      bus.batch(() => bus.emit('account.updated', { accountId: '3' }));
      expect(seen).toEqual(['1']);
    });
    expect(seen).toEqual(['1', '2', '3']);
  });

  it('drops the events of a unit that throws, and only those', () => {
    const bus = new SocialEvents();
    const seen: string[] = [];
    bus.on('account.updated', (e) => seen.push(e.accountId));
    expect(() =>
      bus.batch(() => {
        bus.emit('account.updated', { accountId: 'lost' });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    bus.batch(() => {
      bus.emit('account.updated', { accountId: 'kept' });
      try {
        bus.batch(() => {
          bus.emit('account.updated', { accountId: 'inner-lost' });
          throw new Error('savepoint rolled back');
        });
      } catch {
        // the outer unit goes on
      }
    });
    expect(seen).toEqual(['kept']);
  });

  it('keeps delivering to other listeners when one throws, and reports the error', () => {
    const errors: unknown[] = [];
    const bus = new SocialEvents((_type, error) => errors.push(error));
    const seen: string[] = [];
    bus.on('account.updated', () => {
      throw new Error('listener broke');
    });
    bus.on('account.updated', (e) => seen.push(e.accountId));
    bus.emit('account.updated', { accountId: '1' });
    expect(seen).toEqual(['1']);
    expect(errors).toHaveLength(1);
  });

  it('stops delivering after unsubscribe', () => {
    const bus = new SocialEvents();
    const seen: string[] = [];
    const off = bus.on('filters.changed', (e) => seen.push(e.accountId));
    bus.emit('filters.changed', { accountId: 'a' });
    off();
    bus.emit('filters.changed', { accountId: 'b' });
    expect(seen).toEqual(['a']);
  });
});

describe('SocialStore.transaction and the bus', () => {
  it('delivers after commit and never for a rolled-back write', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-events-'));
    const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'FULL' });
    try {
      const store = new SocialStore(db);
      const seen: Array<{ id: string; committed: boolean }> = [];
      store.events.on('account.updated', (e) => {
        const row = db.prepare("SELECT value FROM settings WHERE key = 'probe'").get() as { value: string } | undefined;
        seen.push({ id: e.accountId, committed: row?.value === e.accountId && !db.inTransaction });
      });
      store.transaction(() => {
        db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('probe', 'a')").run();
        store.events.emit('account.updated', { accountId: 'a' });
      });
      expect(() =>
        store.transaction(() => {
          db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('probe', 'b')").run();
          store.events.emit('account.updated', { accountId: 'b' });
          throw new Error('abort');
        }),
      ).toThrow('abort');
      expect(seen).toEqual([{ id: 'a', committed: true }]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SocialStore.read', () => {
  it('reads one snapshot: a write another connection commits meanwhile is seen only afterwards', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-read-'));
    const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'FULL' });
    const other = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'FULL' });
    try {
      const store = new SocialStore(db);
      const probe = () =>
        (db.prepare("SELECT value FROM settings WHERE key = 'probe'").get() as { value: string } | undefined)?.value;
      const write = (value: string) =>
        other.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('probe', ?)").run(value);
      write('before');
      const seen = store.read(() => {
        const first = probe();
        write('during');
        return [first, probe()];
      });
      expect(seen).toEqual(['before', 'before']);
      expect(probe()).toBe('during');
      expect(db.inTransaction).toBe(false);
      // A function that would let other requests run inside the transaction is refused.
      expect(() => store.read(async () => probe())).toThrow();
    } finally {
      other.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

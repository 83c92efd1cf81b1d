import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './open.ts';
import { WriteGroups } from './write-groups.ts';

let dir: string;
let db: Database;
let other: Database;
let told: string[];
let groups: WriteGroups;

const migrations = [{ version: 1, name: 'notes', up: (d: Database) => d.exec('CREATE TABLE notes (text TEXT)') }];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-write-groups-'));
  const file = path.join(dir, 'test.db');
  db = openDatabase(file, { migrations, synchronous: 'FULL' });
  // A second connection sees only what is committed: what a crash would leave.
  other = new BetterSqlite3(file, { readonly: true });
  told = [];
  groups = new WriteGroups(db, {
    began: () => told.push('began'),
    committed: () => told.push('committed'),
    failed: (err) => told.push(`failed ${(err as { code?: string }).code}`),
  });
});

afterEach(() => {
  groups.flush();
  other.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const insert = (text: string) => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text);
const committedNotes = () =>
  (other.prepare('SELECT text FROM notes ORDER BY rowid').all() as { text: string }[]).map((r) => r.text);

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('write groups', () => {
  it('commits every write of one turn together, and durable() resolves only once they are committed', async () => {
    for (let i = 0; i < 50; i++) groups.write(() => insert(`note ${i}`));
    expect(groups.pending).toBe(true);
    expect(committedNotes()).toEqual([]);
    // Written in place: the writer's own connection reads them back at once.
    expect(db.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 50 });
    await groups.durable();
    expect(committedNotes()).toHaveLength(50);
    expect(told).toEqual(['began', 'committed']);
    expect(groups.pending).toBe(false);
    await groups.durable(); // nothing pending: at once
  });

  it('undoes a failing write alone; its neighbours, before and after it, commit', async () => {
    groups.write(() => insert('first'));
    expect(() =>
      groups.write(() => {
        insert('half of a failing write');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    const value = groups.write(() => {
      insert('outer');
      expect(() =>
        groups.write(() => {
          insert('inner, failing');
          throw new Error('inner refused');
        }),
      ).toThrow('inner refused');
      return 42;
    });
    expect(value).toBe(42);
    groups.write(() => insert('last'));
    await groups.durable();
    expect(committedNotes()).toEqual(['first', 'outer', 'last']);
    expect(told).toEqual(['began', 'committed']);
  });

  it('a write that awaits is refused and undone', async () => {
    expect(() =>
      groups.write(() => {
        insert('async');
        return Promise.resolve();
      }),
    ).toThrow('cannot span an await');
    groups.write(() => insert('sync'));
    await groups.durable();
    expect(committedNotes()).toEqual(['sync']);
  });

  it('bounds a group: the write past maxWrites commits the full group first', async () => {
    const small = new WriteGroups(
      db,
      {
        began: () => told.push('began'),
        committed: () => told.push('committed'),
        failed: () => told.push('failed'),
      },
      { maxWrites: 2 },
    );
    for (let i = 0; i < 5; i++) small.write(() => insert(`n${i}`));
    expect(committedNotes()).toEqual(['n0', 'n1', 'n2', 'n3']);
    await small.durable();
    expect(committedNotes()).toHaveLength(5);
    expect(told.filter((t) => t === 'committed')).toHaveLength(3);
  });

  it('when SQLite rolls the whole transaction back (disk full), the group is lost and its waiters hear so', async () => {
    groups.write(() => insert('before'));
    const waited = groups.durable();
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    expect(() => groups.write(() => insert('x'.repeat(200_000)))).toThrow(/full/);
    await expect(waited).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(told).toEqual(['began', 'failed SQLITE_FULL']);
    expect(groups.pending).toBe(false);
    // The next write starts a group of its own.
    groups.write(() => insert('after'));
    await groups.durable();
    expect(committedNotes()).toEqual(['after']);
  });

  it('a statement outside any write that loses the transaction (disk full) fails the group; the next write starts afresh', async () => {
    groups.write(() => insert('before'));
    const waited = groups.durable();
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    expect(() => insert('x'.repeat(200_000))).toThrow(/full/);
    db.pragma('max_page_count = 4294967294');
    groups.write(() => insert('after'));
    await expect(waited).rejects.toThrow('rolled the write group back');
    await groups.durable();
    expect(committedNotes()).toEqual(['after']);
    expect(told).toEqual(['began', 'failed undefined', 'began', 'committed']);
  });

  it('syncs the WAL once per group at most: groups committed while a sync runs share the next one', async () => {
    const held: (() => void)[] = [];
    const ordinary = groups.syncFile;
    groups.syncFile = (fd, done) => held.push(() => ordinary(fd, done));
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const waits: Promise<void>[] = [];
    for (let g = 0; g < 5; g++) {
      for (let i = 0; i < 10; i++) groups.write(() => insert(`g${g} n${i}`));
      waits.push(groups.durable());
      await turn(); // the group commits
    }
    // Five groups committed, one sync asked for; nothing told or released while it has not returned.
    expect(groups.commits).toBe(5);
    expect(held).toHaveLength(1);
    expect(groups.pending).toBe(true);
    expect(told.filter((t) => t === 'committed')).toEqual([]);
    held.shift()!();
    await waits[0];
    expect(told.filter((t) => t === 'committed')).toHaveLength(1);
    // The four groups committed meanwhile: one sync for all of them.
    await until(() => held.length === 1);
    expect(groups.syncs).toBe(2);
    held.shift()!();
    await Promise.all(waits);
    expect(told.filter((t) => t === 'committed')).toHaveLength(5);
    expect(groups.pending).toBe(false);
    expect(committedNotes()).toHaveLength(50);
  });

  it("runs a group at synchronous=NORMAL and every statement outside one at the connection's FULL", async () => {
    const level = () => db.pragma('synchronous', { simple: true });
    expect(level()).toBe(2);
    groups.write(() => {
      insert('grouped');
      expect(level()).toBe(1);
    });
    await groups.durable();
    expect(level()).toBe(2);
  });

  it('a failed sync fails its groups and every later one (recovery would stop at the first frame not on disk)', async () => {
    const ordinary = groups.syncFile;
    groups.syncFile = (_fd, done) => done(Object.assign(new Error('input/output error'), { code: 'EIO' }));
    groups.write(() => insert('lost'));
    await expect(groups.durable()).rejects.toMatchObject({ code: 'EIO' });
    groups.syncFile = ordinary;
    groups.write(() => insert('after'));
    await expect(groups.durable()).rejects.toMatchObject({ code: 'EIO' });
    expect(told).toEqual(['began', 'failed EIO', 'began', 'failed EIO']);
  });

  it('flush() commits at once (a closing database)', () => {
    groups.write(() => insert('closing'));
    groups.flush();
    expect(committedNotes()).toEqual(['closing']);
    expect(groups.pending).toBe(false);
  });

  it('flush() syncs on the spot what a running sync has not yet covered, and settles it', async () => {
    const held: (() => Promise<void>)[] = [];
    const ordinary = groups.syncFile;
    groups.syncFile = (fd, done) =>
      held.push(
        () =>
          new Promise((returned) =>
            ordinary(fd, (error) => {
              done(error);
              returned();
            }),
          ),
      );
    groups.write(() => insert('syncing'));
    const first = groups.durable();
    await new Promise((resolve) => setImmediate(resolve));
    groups.write(() => insert('closing'));
    const second = groups.durable();
    groups.flush();
    await Promise.all([first, second]);
    expect(groups.pending).toBe(false);
    expect(told).toEqual(['began', 'began', 'committed', 'committed']);
    // The sync the pool was running returns afterwards and changes nothing.
    groups.syncFile = ordinary;
    await held.shift()!();
    expect(held).toEqual([]);
    expect(told).toEqual(['began', 'began', 'committed', 'committed']);
  });
});

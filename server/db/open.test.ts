import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkIntegrityInBackground,
  currentSchemaVersion,
  DamagedDatabaseError,
  openDatabase,
  type Migration,
} from './index.ts';

const dirs: string[] = [];
function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-db-'));
  dirs.push(dir);
  return path.join(dir, 'test.db');
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const v1: Migration = {
  version: 1,
  name: 'notes',
  up: (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)'),
};
const v2: Migration = {
  version: 2,
  name: 'note titles',
  up: (db) => {
    db.exec("ALTER TABLE notes ADD COLUMN title TEXT NOT NULL DEFAULT ''");
    db.exec('UPDATE notes SET title = substr(body, 1, 3)');
  },
};

describe('openDatabase', () => {
  it('creates a WAL database at the newest version with the requested durability', () => {
    const db = openDatabase(tempFile(), { migrations: [v1, v2], synchronous: 'FULL' });
    expect(currentSchemaVersion(db)).toBe(2);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    db.close();
  });

  it('keeps temporary b-trees in memory when asked, after migrating with the default', () => {
    const migrations: Migration[] = [
      {
        version: 1,
        name: 'sees temp_store',
        up: (db) =>
          db.exec(`CREATE TABLE seen AS SELECT ${Number(db.pragma('temp_store', { simple: true }))} AS temp_store`),
      },
    ];
    const db = openDatabase(tempFile(), { migrations, synchronous: 'FULL', tempStore: 'memory' });
    expect(db.prepare('SELECT temp_store FROM seen').pluck().get()).toBe(0); // default while migrating
    expect(db.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
    db.close();
    const plain = openDatabase(tempFile(), { migrations: [v1], synchronous: 'FULL' });
    expect(plain.pragma('temp_store', { simple: true })).toBe(0);
    plain.close();
  });

  it('migrates an old-version file and keeps its data', () => {
    const file = tempFile();
    const old = openDatabase(file, { migrations: [v1], synchronous: 'NORMAL' });
    old.prepare('INSERT INTO notes (body) VALUES (?)').run('hello world');
    old.close();

    const db = openDatabase(file, { migrations: [v1, v2], synchronous: 'NORMAL' });
    expect(currentSchemaVersion(db)).toBe(2);
    expect(db.prepare('SELECT body, title FROM notes').all()).toEqual([{ body: 'hello world', title: 'hel' }]);
    db.close();
  });

  it('rolls a failing migration back and leaves the file at the old version', () => {
    const file = tempFile();
    openDatabase(file, { migrations: [v1], synchronous: 'NORMAL' }).close();
    const broken: Migration = {
      version: 2,
      name: 'broken',
      up: (db) => {
        db.exec('CREATE TABLE half_done (x)');
        throw new Error('boom');
      },
    };
    expect(() => openDatabase(file, { migrations: [v1, broken], synchronous: 'NORMAL' })).toThrow('boom');
    const db = openDatabase(file, { migrations: [v1], synchronous: 'NORMAL' });
    expect(currentSchemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    db.close();
  });

  it('refuses a file written by a newer Homeport', () => {
    const file = tempFile();
    openDatabase(file, { migrations: [v1, v2], synchronous: 'NORMAL' }).close();
    expect(() => openDatabase(file, { migrations: [v1], synchronous: 'NORMAL' })).toThrow(/newer than this Homeport/);
  });
});

describe('damaged databases', () => {
  it('refuses a file that is no database with a message saying what to do', () => {
    const file = tempFile();
    fs.writeFileSync(file, Buffer.alloc(8192, 0x5a));
    let error: unknown;
    try {
      openDatabase(file, { migrations: [v1], synchronous: 'FULL' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DamagedDatabaseError);
    expect((error as Error).message).toMatch(/is damaged .*homeport restore/);
  });

  it('finds damaged pages with a background quick_check, and none in a sound file', async () => {
    const file = tempFile();
    const db = openDatabase(file, { migrations: [v1], synchronous: 'FULL' });
    const insert = db.prepare('INSERT INTO notes (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(`note ${i} ${'x'.repeat(200)}`);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    expect(await checkIntegrityInBackground([file]).result).toEqual([[]]);
    // Scribble over the middle of the table's pages (not the header), as a failing disk would.
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(4096, 0xff), 0, 4096, 40 * 4096 + 100);
    fs.closeSync(fd);
    // One worker checks several files in turn, each with its own findings.
    const sound = tempFile();
    openDatabase(sound, { migrations: [v1], synchronous: 'FULL' }).close();
    const [damaged, fine] = await checkIntegrityInBackground([file, sound]).result;
    expect(damaged.length).toBeGreaterThan(0);
    expect(fine).toEqual([]);
  });
});

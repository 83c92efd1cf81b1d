import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations/index.ts';
import { SocialStore } from '../store/index.ts';
import { GoneActors } from './gone-actors.ts';

/*
 * The gone list kept in social.db: what a new GoneActors (a restart) reads back, bounded in rows as in memory,
 * each entry until its own expiry.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-gone-'));
const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'NORMAL' });
const clock = { now: 1_000_000 };
const store = new SocialStore(db, () => clock.now);
const rows = () => (db.prepare('SELECT count(*) AS n FROM gone_actors').get() as { n: bigint }).n;

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the gone list in social.db', () => {
  it('is read back by the next start, bounded in rows, each entry until its expiry', () => {
    const limits = { max: 3, ttlMs: 1_000 };
    const first = new GoneActors(limits, store.goneActors, () => clock.now);
    first.keyGone('https://x.test/users/a#key');
    clock.now += 500;
    for (const name of ['b', 'c', 'd']) first.actorGone(`https://x.test/users/${name}`);
    // a was pushed out of memory, and out of the table with it.
    expect(rows()).toBe(3n);

    const restarted = new GoneActors(limits, store.goneActors, () => clock.now);
    expect(restarted.has('https://x.test/users/a#key')).toBe(false);
    expect(restarted.has('https://x.test/users/b')).toBe(true);
    expect(restarted.has('https://x.test/users/d')).toBe(true);

    // Past their expiry the entries are no longer read, and the table lets them go.
    clock.now += 1_000;
    const later = new GoneActors(limits, store.goneActors, () => clock.now);
    expect(later.has('https://x.test/users/b')).toBe(false);
    expect(rows()).toBe(0n);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations.ts';
import { SocialStore } from './index.ts';

/*
 * Follower and following counts come from trigger-kept counters less follows with unlisted accounts;
 * they must equal counting the follow rows of listed, unsuspended accounts, whatever happens.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-counts-'));
const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'NORMAL' });
const store = new SocialStore(db);

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The reference count, computed here in plain code from the rows (not from the store's own SQL fragments):
 * a follow counts when the account at its other end is shown by the API — not deleted, not suspended, and
 * for a local account confirmed and approved.
 */
function counted(accountId: string) {
  const accounts = db.prepare('SELECT id, domain, deleted_at, suspended_at FROM accounts').all() as { id: bigint; domain: string | null; deleted_at: unknown; suspended_at: unknown }[];
  const users = new Map((db.prepare('SELECT account_id, confirmed_at, approved FROM users').all() as { account_id: bigint; confirmed_at: unknown; approved: bigint }[]).map((u) => [String(u.account_id), u]));
  const shown = new Set(
    accounts
      .filter((a) => {
        if (a.deleted_at !== null || a.suspended_at !== null) return false;
        if (a.domain !== null) return true;
        const u = users.get(String(a.id));
        return u !== undefined && u.confirmed_at !== null && Number(u.approved) === 1;
      })
      .map((a) => String(a.id)),
  );
  const follows = db.prepare('SELECT account_id, target_account_id FROM follows').all() as { account_id: bigint; target_account_id: bigint }[];
  return {
    followers: follows.filter((f) => String(f.target_account_id) === accountId && shown.has(String(f.account_id))).length,
    following: follows.filter((f) => String(f.account_id) === accountId && shown.has(String(f.target_account_id))).length,
  };
}

describe('follow counts', () => {
  it('match counting listed follow rows through follows, unfollows, suspensions, confirmations and deletions', () => {
    const ids = Array.from({ length: 12 }, (_, i) => {
      const id = store.accounts.insertLocal({ username: `u${i}`, publicKey: '', privateKey: '' });
      store.users.insert({ accountId: id, email: `u${i}@example.org`, passwordHash: 'x', role: 'user', locale: null, confirmed: i !== 3, approved: i !== 4, createdByApplicationId: null, signUpIp: null, reason: null, dateOfBirth: null });
      return id;
    });
    const remote = store.accounts.insertRemote({ username: 'far', domain: 'remote.example', uri: 'https://remote.example/users/far', publicKey: '' });
    const all = [...ids, remote];
    const follow = (a: string, b: string) => store.relationships.upsertFollow(a, b, { showReblogs: true, notify: false, languages: null });
    for (const a of all) for (const b of all) if (a !== b && (BigInt(a) + BigInt(b)) % 3n !== 0n) follow(a, b);
    const check = () => {
      const accounts = store.accounts.byIds(all);
      const counts = store.accounts.counts(accounts);
      for (const a of all) expect({ id: a, ...counted(a) }).toEqual({ id: a, followers: counts.get(a)!.followers, following: counts.get(a)!.following });
    };
    check();
    store.relationships.deleteFollow(ids[0], ids[1]);
    store.relationships.severBetween(ids[2], ids[5]);
    store.accounts.setSuspended(ids[6], true);
    check();
    store.users.confirm(store.users.byAccountId(ids[3])!.id);
    store.accounts.setSuspended(ids[6], false);
    store.accounts.markDeleted(ids[7]);
    db.prepare('DELETE FROM accounts WHERE id = ?').run(remote);
    all.pop();
    check();
  });
});

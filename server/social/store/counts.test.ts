import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations.ts';
import { ACCOUNT_FROM, ACCOUNT_LISTED, SocialStore } from './index.ts';

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

function counted(accountId: string) {
  const listed = (column: string) =>
    `EXISTS (SELECT 1 FROM ${ACCOUNT_FROM} WHERE a.id = f.${column} AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL)`;
  const n = (sql: string) => Number((db.prepare(sql).get(accountId) as { n: bigint }).n);
  return {
    followers: n(`SELECT COUNT(*) AS n FROM follows f WHERE f.target_account_id = ? AND ${listed('account_id')}`),
    following: n(`SELECT COUNT(*) AS n FROM follows f WHERE f.account_id = ? AND ${listed('target_account_id')}`),
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

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { socialMigrations } from './index.ts';
import { SocialStore } from '../store/index.ts';

/*
 * Upgrading a social.db that already holds data: the full-text index is built for every existing status
 * (more than one batch of them, remote HTML read as text), as a server started on an older database does.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-migrations-'));
const file = path.join(dir, 'social.db');

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('social.db migrations on existing data', () => {
  it('index every status of a database from before full-text search', () => {
    const before = openDatabase(file, { migrations: socialMigrations, synchronous: 'NORMAL' });
    before.defaultSafeIntegers(true);
    const store = new SocialStore(before);
    const remote = store.accounts.insertRemote({
      username: 'far',
      domain: 'far.example',
      uri: 'https://far.example/users/far',
      publicKey: 'not checked here',
    });
    for (let i = 0; i < 2_500; i++)
      store.statuses.insert({
        accountId: remote,
        local: false,
        visibility: 'public',
        content: `<p>old <b>post</b> number${i}</p>`,
        uri: `https://far.example/s/${i}`,
      });
    // Back to the schema as it was before version 9: what versions 9 and later add is taken away.
    before.exec(
      'DROP TRIGGER account_version; DROP TRIGGER status_stats_status_insert; DROP TRIGGER status_stats_status_update; DROP TRIGGER status_stats_status_delete; DROP TRIGGER status_stats_favourite_insert; DROP TRIGGER status_stats_favourite_delete; DROP TRIGGER status_stats_quote_insert; DROP TRIGGER status_stats_quote_update; DROP TRIGGER status_stats_quote_delete; DROP TABLE status_stats; DROP TABLE statuses_fts; DROP INDEX statuses_uri; DROP INDEX statuses_url; DROP INDEX notifications_group; DROP INDEX reports_target; DROP TABLE notification_policies; DROP TABLE notification_requests; DROP TABLE notification_permissions; DROP INDEX notifications_filtered; DROP TABLE collection_items; DROP TABLE collections; DROP TABLE email_domain_blocks; DROP TABLE canonical_email_blocks; DROP TABLE ip_blocks; DROP INDEX reports_open; ALTER TABLE reports DROP COLUMN assigned_account_id; ALTER TABLE reports DROP COLUMN action_taken_by_account_id; ALTER TABLE accounts DROP COLUMN sensitized_at; DROP TABLE quotes; ALTER TABLE notifications DROP COLUMN account_warning_id; DROP TABLE account_warnings; DROP TABLE card_fetches; DROP TABLE bulk_import_rows; DROP TABLE bulk_imports; DROP TABLE annual_reports; DROP TABLE preview_card_providers; ALTER TABLE statuses DROP COLUMN trendable; DROP TABLE relayed_events; DROP INDEX statuses_account_live; DROP INDEX statuses_public_listing; DROP TABLE gone_actors; PRAGMA user_version = 8',
    );
    before.close();

    const after = openDatabase(file, { migrations: socialMigrations, synchronous: 'NORMAL' });
    after.defaultSafeIntegers(true);
    try {
      expect(Number(after.pragma('user_version', { simple: true }))).toBe(socialMigrations.length);
      expect(Number((after.prepare('SELECT COUNT(*) AS n FROM statuses_fts').get() as { n: bigint }).n)).toBe(2_500);
      const hit = after.prepare('SELECT body FROM statuses_fts WHERE statuses_fts MATCH \'"number2499"\'').get() as {
        body: string;
      };
      expect(hit.body).toBe('old post number2499');
    } finally {
      after.close();
    }
  });

  it('take the deleted statuses of a database from before version 28 off their hashtags’ listings', () => {
    const tagFile = path.join(dir, 'tags.db');
    const before = openDatabase(tagFile, { migrations: socialMigrations, synchronous: 'NORMAL' });
    const store = new SocialStore(before);
    const author = store.accounts.insertLocal({ username: 'old', publicKey: 'k', privateKey: 'k' });
    const [kept, deleted] = ['kept', 'deleted'].map((text) => {
      const id = store.statuses.insert({ accountId: author, local: true, visibility: 'public', content: text });
      store.statuses.addTags(id, ['oldtag']);
      return id;
    });
    // As a deletion left it before version 28: the tombstone still listed under its hashtag.
    before.prepare('UPDATE statuses SET deleted_at = 1 WHERE id = ?').run(deleted);
    before.exec(
      'DROP INDEX statuses_account_live; DROP INDEX statuses_public_listing; DROP TABLE gone_actors; PRAGMA user_version = 27',
    );
    before.close();

    const after = openDatabase(tagFile, { migrations: socialMigrations, synchronous: 'NORMAL' });
    after.defaultSafeIntegers(true);
    try {
      const listed = after.prepare('SELECT status_id FROM statuses_tags').all() as { status_id: bigint }[];
      expect(listed.map((r) => String(r.status_id))).toEqual([kept]);
    } finally {
      after.close();
    }
  });
});

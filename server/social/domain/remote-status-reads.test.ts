import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type SocialTestServer, startSocialWithClock } from '../testing/harness.ts';

/*
 * A remote post (every inbound Create) is stored with what its caller read already: the post's quote policy in
 * its insert, the mentioned local account and the post just stored not read again for the mention's notification,
 * no home feed looked for of its (remote) author, a known hashtag found and stamped in one statement.
 * Each test fails when that row is read or written a second time; the stored rows are checked as well.
 */

describe('a remote post mentioning a local user', () => {
  let server: SocialTestServer;
  const ran = statementRecorder();
  beforeAll(async () => void (server = await startSocialWithClock(Date.now)));
  afterAll(() => server?.close());

  it('is written once, read once, and notifies with the rows its caller read', async () => {
    const alice = await server.createUser('alice');
    const { store, remoteActivity } = server.social.context;
    const farId = store.accounts.insertRemote({
      username: 'far',
      domain: 'far.example',
      uri: 'https://far.example/users/far',
      publicKey: 'not checked here',
    });
    const far = store.accounts.byId(farId)!;
    const mentioned = store.accounts.byId(alice.accountId)!;
    const knownTag = store.statuses.ensureTag('Sailing');
    const statusRead = vi.spyOn(store.statuses, 'byId');
    const accountRead = vi.spyOn(store.accounts, 'byId');
    const policySet = vi.spyOn(store.statuses, 'setQuotePolicy');
    ran.recording = true;
    try {
      const status = remoteActivity.statusReceived(
        far,
        {
          uri: 'https://far.example/statuses/1',
          url: null,
          content: '<p>@alice hello</p>',
          spoilerText: '',
          sensitive: false,
          language: 'en',
          visibility: 'public',
          tags: ['sailing', 'NewTag'],
          emojis: [],
          publishedAt: null,
          poll: null,
        },
        { parent: null, mentioned: [mentioned], quiet: false, quotePolicy: 'followers' },
        () => {},
      );
      expect(status.quoteApprovalPolicy).toBe('followers');
      expect(policySet).not.toHaveBeenCalled();
      expect(statusRead.mock.calls).toEqual([[status.id]]);
      // The sender's row is read again (it may have been suspended while the post was being read); the recipient's is not.
      expect(accountRead.mock.calls).toEqual([[farId]]);
      // The follower's feed inserts name no author; the author's own feed insert does.
      expect(ran.sql.filter((sql) => sql.includes('home_feed') && sql.includes('@author'))).toEqual([]);
      expect(ran.sql.filter((sql) => sql.startsWith('INSERT INTO statuses '))).toHaveLength(1);
      // The known tag: its stamp finds it; the new one: the stamp finds nothing, the insert stamps it.
      expect(ran.sql.filter((sql) => /\btags\b/.test(sql) && !/statuses_tags|tag_follows/.test(sql))).toEqual([
        expect.stringMatching(/^UPDATE tags .* RETURNING id$/),
        expect.stringMatching(/^UPDATE tags .* RETURNING id$/),
        expect.stringMatching(/^INSERT INTO tags /),
      ]);
      expect(store.statuses.tags([status.id]).get(status.id)).toEqual(['newtag', 'sailing']);
      const stamped = store.db.prepare('SELECT id, name, last_status_at AS at FROM tags ORDER BY name').all();
      expect(stamped).toEqual([
        { id: expect.anything(), name: 'newtag', at: expect.any(BigInt) },
        { id: BigInt(knownTag), name: 'sailing', at: expect.any(BigInt) },
      ]);
    } finally {
      ran.recording = false;
      statusRead.mockRestore();
      accountRead.mockRestore();
      policySet.mockRestore();
    }
    const notifications = await server.masto(alice.token).v1.notifications.list();
    expect(notifications.map((n) => [n.type, n.account.acct, n.status?.content])).toEqual([
      ['mention', 'far@far.example', '<p>@alice hello</p>'],
    ]);
  });
});

/**
 * Records the SQL of every statement run (any connection of this process) while `recording`. Installed before the
 * server opens its database: the store binds each write statement's run once, when it prepares it.
 */
function statementRecorder(): { sql: string[]; recording: boolean } {
  const recorder = { sql: [] as string[], recording: false };
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<
    'run' | 'get' | 'all',
    (...args: unknown[]) => unknown
  >;
  for (const method of ['run', 'get', 'all'] as const) {
    const original = statement[method];
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      if (recorder.recording) recorder.sql.push(this.source);
      return original.apply(this, args);
    };
  }
  return recorder;
}

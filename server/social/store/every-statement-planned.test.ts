import { DATA_KINDS } from '../domain/account-data-csv.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type SocialTestServer, startSocialTestServer, type TestUser } from '../testing/harness.ts';
import { bareStatements, type PreparedStatement, plannedOtherwise, statementsWhile } from '../../db/testing/index.ts';

/*
 * Every statement the social API prepares while it serves a broad set of requests (posting, notifications,
 * followers and following, search, admin, trends, scheduled posts, exports, a CSV import, relationships, conversations,
 * bookmarks, favourites, lists, filters, tags, blocks and mutes, timelines) binds no parameter the planner
 * reads, LIKE, GLOB and MATCH patterns aside (SQLite 3.54 compiled such a statement again at every run:
 * StoreCore.sql), and plans as its plain text does with the same values bound.
 */

let server: SocialTestServer;
let owner: TestUser;
let ann: TestUser;
let ben: TestUser;
let seen: PreparedStatement[];

beforeAll(async () => {
  server = await startSocialTestServer();
  [owner, ann, ben] = await Promise.all(
    [
      ['owner', 'owner'],
      ['ann', 'user'],
      ['ben', 'user'],
    ].map(([name, role]) => server.createUser(name, { role, scopes: 'read write follow push admin:read' })),
  );
  seen = await statementsWhile(server.social.db, serveRequests);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function ok(token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await server.call(token, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function serveRequests(): Promise<void> {
  await ok(owner.token, 'POST', `/api/v1/accounts/${ann.accountId}/follow`);
  await ok(ann.token, 'POST', `/api/v1/accounts/${owner.accountId}/follow`);
  await ok(ben.token, 'POST', `/api/v1/accounts/${owner.accountId}/follow`);
  await ok(owner.token, 'POST', '/api/v1/tags/homeport/follow');
  const post = await ok(ann.token, 'POST', '/api/v1/statuses', {
    status: '@owner a #homeport post https://example.com/page',
    poll: { options: ['yes', 'no'], expires_in: 3600 },
  });
  const reply = await ok(owner.token, 'POST', '/api/v1/statuses', { status: '@ann thanks', in_reply_to_id: post.id });
  await ok(ben.token, 'POST', '/api/v1/statuses', { status: '@owner just us', visibility: 'direct' });
  await ok(owner.token, 'POST', `/api/v1/statuses/${post.id}/favourite`);
  await ok(owner.token, 'POST', `/api/v1/statuses/${post.id}/bookmark`);
  await ok(ben.token, 'POST', `/api/v1/statuses/${post.id}/reblog`);
  await ok(owner.token, 'POST', `/api/v1/polls/${post.poll.id}/votes`, { choices: [0] });
  await ok(owner.token, 'PUT', `/api/v1/statuses/${reply.id}`, { status: '@ann thanks again' });
  const list = await ok(owner.token, 'POST', '/api/v1/lists', { title: 'Friends' });
  await ok(owner.token, 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [ann.accountId] });
  await ok(owner.token, 'POST', '/api/v2/filters', {
    title: 'Spoilers',
    context: ['home', 'public'],
    keywords_attributes: [{ keyword: 'spoiler' }],
  });
  await ok(owner.token, 'POST', '/api/v1/statuses', {
    status: 'later',
    scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  await ok(owner.token, 'POST', '/api/v1/domain_blocks', { domain: 'spam.example' });
  await ok(owner.token, 'POST', `/api/v1/accounts/${ben.accountId}/mute`);
  await ok(owner.token, 'POST', '/api/v1/markers', { home: { last_read_id: post.id } });
  const reads = [
    '/api/v1/timelines/home',
    '/api/v1/timelines/public',
    '/api/v1/timelines/tag/homeport',
    `/api/v1/timelines/list/${list.id}`,
    '/api/v1/notifications',
    '/api/v2/notifications',
    '/api/v1/notifications/requests',
    `/api/v1/accounts/${owner.accountId}/followers`,
    `/api/v1/accounts/${owner.accountId}/following`,
    `/api/v1/accounts/${ann.accountId}/statuses`,
    `/api/v1/accounts/relationships?id[]=${ann.accountId}&id[]=${ben.accountId}`,
    `/api/v1/accounts/familiar_followers?id[]=${ann.accountId}`,
    '/api/v2/search?q=ann&resolve=false',
    '/api/v2/search?q=homeport&type=hashtags',
    '/api/v2/search?q=post&type=statuses',
    '/api/v1/accounts/search?q=be',
    '/api/v1/admin/accounts',
    '/api/v2/admin/accounts?origin=local',
    '/api/v1/trends/tags',
    '/api/v1/trends/statuses',
    '/api/v1/trends/links',
    '/api/v1/scheduled_statuses',
    '/api/v1/conversations',
    '/api/v1/bookmarks',
    '/api/v1/favourites',
    '/api/v1/lists',
    `/api/v1/lists/${list.id}/accounts`,
    '/api/v2/filters',
    '/api/v1/followed_tags',
    '/api/v1/domain_blocks',
    '/api/v1/mutes',
    '/api/v1/blocks',
    '/api/v1/follow_requests',
    '/api/v1/suggestions',
    '/api/v1/directory?local=true',
    '/api/v1/markers?timeline[]=home',
    `/api/v1/statuses/${post.id}/context`,
    `/api/v1/statuses/${post.id}/favourited_by`,
    `/api/v1/statuses/${post.id}/reblogged_by`,
    `/api/v1/statuses/${reply.id}/history`,
  ];
  for (const path of reads) await ok(owner.token, 'GET', path);
  // Second pages: the cursors' statements.
  for (const path of ['/api/v1/timelines/home', '/api/v1/notifications', '/api/v1/bookmarks', '/api/v1/favourites'])
    await ok(owner.token, 'GET', `${path}${path.includes('?') ? '&' : '?'}max_id=${post.id}&limit=2`);
  // A CSV import, worked off in the background: its rows, its progress and its failures.
  const imported = await ok(owner.token, 'POST', '/api/v1/homeport/imports', {
    type: 'blocked_domains',
    data: '#domain\nother.example\nnot a domain!\n',
  });
  await vi.waitFor(
    async () =>
      expect((await ok(owner.token, 'GET', `/api/v1/homeport/imports/${imported.id}`)).state).toBe('finished'),
    { timeout: 20_000, interval: 50 },
  );
  await ok(owner.token, 'GET', '/api/v1/homeport/imports');
  const failures = await server.fetch(`${server.url}/api/v1/homeport/imports/${imported.id}/failures.csv`, {
    headers: { Authorization: `Bearer ${owner.token}` },
  });
  if (failures.status !== 200) throw new Error(`import failures: ${failures.status}`);
  await failures.text();
  for (const kind of DATA_KINDS) {
    const res = await server.fetch(`${server.url}/api/v1/homeport/exports/${kind}.csv`, {
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    if (res.status !== 200) throw new Error(`export ${kind}: ${res.status}`);
    await res.text();
  }
}

describe('the statements the social API prepares', () => {
  it('are many, of every kind of request', () => {
    expect(seen.length).toBeGreaterThan(150);
    expect(seen.filter((s) => / LIMIT \+@cursor_limit/.test(s.sql)).length).toBeGreaterThan(10);
  });

  it('bind no parameter the planner reads, patterns aside', () => {
    expect(bareStatements(seen)).toEqual([]);
  });

  it('plan as their plain texts do with the same values', () => {
    expect(plannedOtherwise(server.social.db, seen)).toEqual([]);
  });
});

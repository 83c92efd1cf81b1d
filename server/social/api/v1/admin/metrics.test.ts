import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOMEPORT_VERSION } from '../../../../version.ts';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../../testing/harness.ts';

/* The admin dashboard's measures, dimensions and retention, counted from what the database holds. */

let server: SocialTestServer;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let tagId: string;
const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startSocialTestServer();
  admin = await server.createUser('boss', { role: 'admin', scopes: 'read write admin:read admin:write' });
  [alice, bob] = await Promise.all([server.createUser('alice'), server.createUser('bob')]);
  const a = server.masto(alice.token);
  const b = server.masto(bob.token);
  const tagged = await a.v1.statuses.create({ status: 'hello #sailing', language: 'en' });
  await a.v1.statuses.create({ status: 'bonjour', language: 'fr' });
  await b.v1.statuses.$select(tagged.id).favourite();
  await b.v1.statuses.$select(tagged.id).reblog();
  await b.v1.statuses.create({ status: '@alice hi', inReplyToId: tagged.id, language: 'en' });
  await b.v1.accounts.$select(alice.accountId).follow();
  await b.v1.reports.create({ accountId: alice.accountId, comment: 'testing reports' });
  tagId = (await a.v1.tags.$select('sailing').fetch()).id;
  // What federation would have stored of another server: one account and two of its posts.
  const store = server.social.context.store;
  const far = store.accounts.insertRemote({
    username: 'far',
    domain: 'far.example',
    uri: 'https://far.example/users/far',
    publicKey: 'not checked here',
  });
  for (const i of [1, 2])
    store.statuses.insert({
      accountId: far,
      local: false,
      visibility: 'public',
      content: `<p>far ${i}</p>`,
      uri: `https://far.example/s/${i}`,
      language: 'de',
    });
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string, path: string, body: unknown) => server.call(token, 'POST', path, body);

describe('admin measures', () => {
  it('count each day’s users, activity, interactions, reports, tag uses and another server’s share', async () => {
    const keys = [
      'active_users',
      'new_users',
      'interactions',
      'opened_reports',
      'resolved_reports',
      'tag_uses',
      'tag_accounts',
      'instance_accounts',
      'instance_statuses',
      'instance_media_attachments',
    ];
    const { status, body } = await call(admin.token, '/api/v1/admin/measures', {
      keys,
      start_at: daysAgo(2),
      end_at: `${today}T18:30:00Z`,
      tag_uses: { id: tagId },
      tag_accounts: { id: tagId },
      instance_accounts: { domain: 'far.example' },
      instance_statuses: { domain: 'FAR.example' },
      instance_media_attachments: { domain: 'far.example' },
    });
    expect(status).toBe(200);
    const totals = Object.fromEntries(body.map((m: { key: string; total: string }) => [m.key, m.total]));
    expect(totals).toEqual({
      active_users: '2',
      new_users: '3',
      interactions: '3',
      opened_reports: '1',
      resolved_reports: '0',
      tag_uses: '1',
      tag_accounts: '1',
      instance_accounts: '1',
      instance_statuses: '2',
      instance_media_attachments: '0',
    });
    for (const measure of body) {
      expect(measure.data.map((d: { date: string }) => d.date)).toEqual(
        [daysAgo(2), daysAgo(1), today].map((d) => `${d}T00:00:00Z`),
      );
      expect(measure.data.at(-1).value, measure.key).toBe(measure.total);
      expect(measure.previous_total).toBe('0');
    }
    expect(body.find((m: { key: string }) => m.key === 'instance_media_attachments')).toMatchObject({
      unit: 'bytes',
      human_value: '0 Bytes',
    });
  });

  it('refuse a missing tag or domain, a span past a year, and callers without the dashboard permission', async () => {
    const span = { start_at: today, end_at: today };
    expect((await call(admin.token, '/api/v1/admin/measures', { keys: ['tag_uses'], ...span })).status).toBe(422);
    expect(
      (
        await call(admin.token, '/api/v1/admin/measures', {
          keys: ['new_users'],
          start_at: daysAgo(400),
          end_at: today,
        })
      ).status,
    ).toBe(422);
    const plain = await server.createUser('plain', { scopes: 'read admin:read' });
    expect((await call(plain.token, '/api/v1/admin/measures', { keys: ['new_users'], ...span })).status).toBe(403);
    expect((await call(alice.token, '/api/v1/admin/measures', { keys: ['new_users'], ...span })).status).toBe(403);
  });
});

describe('admin dimensions', () => {
  it('rank languages, apps, servers, a server’s languages, space and versions', async () => {
    const { body } = await call(admin.token, '/api/v1/admin/dimensions', {
      keys: [
        'languages',
        'sources',
        'servers',
        'instance_languages',
        'tag_languages',
        'space_usage',
        'software_versions',
      ],
      start_at: today,
      end_at: today,
      limit: 5,
      instance_languages: { domain: 'far.example' },
      tag_languages: { id: tagId },
    });
    const byKey = Object.fromEntries(body.map((d: { key: string; data: unknown[] }) => [d.key, d.data]));
    expect(byKey.languages).toEqual([
      { key: 'en', human_key: 'English', value: '2' },
      { key: 'fr', human_key: 'French', value: '1' },
    ]);
    expect(byKey.sources).toEqual([{ key: expect.any(String), human_key: expect.any(String), value: '3' }]);
    expect(byKey.servers).toEqual([{ key: 'far.example', human_key: 'far.example', value: '2' }]);
    expect(byKey.instance_languages).toEqual([{ key: 'de', human_key: 'German', value: '2' }]);
    expect(byKey.tag_languages).toEqual([{ key: 'en', human_key: 'English', value: '1' }]);
    const sqlite = byKey.space_usage.find((d: { key: string }) => d.key === 'sqlite');
    expect(Number(sqlite.value)).toBeGreaterThan(0);
    expect(sqlite.unit).toBe('bytes');
    expect(byKey.software_versions).toContainEqual(
      expect.objectContaining({ key: 'homeport', value: HOMEPORT_VERSION }),
    );
  });

  it('take the span as optional, as Mastodon does: without one, everything up to today (masto.js asks so)', async () => {
    const dimensions = await server.masto(admin.token).v1.admin.dimensions.create({ keys: ['languages', 'sources'] });
    const byKey = Object.fromEntries(dimensions.map((d) => [d.key, d.data]));
    expect(byKey.languages).toEqual([
      { key: 'en', humanKey: 'English', value: '2' },
      { key: 'fr', humanKey: 'French', value: '1' },
    ]);
    expect(byKey.sources).toEqual([{ key: expect.any(String), humanKey: expect.any(String), value: '3' }]);
    // One bound alone counts from it (or up to it).
    const since = await call(admin.token, '/api/v1/admin/dimensions', { keys: ['languages'], start_at: daysAgo(1) });
    expect(since.body[0].data.map((d: { key: string }) => d.key)).toEqual(['en', 'fr']);
    const before = await call(admin.token, '/api/v1/admin/dimensions', { keys: ['languages'], end_at: daysAgo(1) });
    expect(before.body[0].data).toEqual([]);
  });
});

describe('admin retention', () => {
  it('follows each sign-up cohort by day and by month', async () => {
    const daily = await call(admin.token, '/api/v1/admin/retention', {
      start_at: daysAgo(1),
      end_at: today,
      frequency: 'day',
    });
    expect(daily.body).toEqual([
      {
        period: `${daysAgo(1)}T00:00:00Z`,
        frequency: 'day',
        data: [
          { date: `${daysAgo(1)}T00:00:00Z`, rate: 0, value: '0' },
          { date: `${today}T00:00:00Z`, rate: 0, value: '0' },
        ],
      },
      { period: `${today}T00:00:00Z`, frequency: 'day', data: [{ date: `${today}T00:00:00Z`, rate: 1, value: '4' }] },
    ]);
    const monthly = await call(admin.token, '/api/v1/admin/retention', {
      start_at: today,
      end_at: today,
      frequency: 'month',
    });
    expect(monthly.body).toEqual([
      {
        period: `${today.slice(0, 7)}-01T00:00:00Z`,
        frequency: 'month',
        data: [{ date: `${today.slice(0, 7)}-01T00:00:00Z`, rate: 1, value: '4' }],
      },
    ]);
    expect((await call(admin.token, '/api/v1/admin/retention', { start_at: daysAgo(120), end_at: today })).status).toBe(
      422,
    );
  });
});

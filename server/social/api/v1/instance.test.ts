import { detector } from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../limits.ts';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

let server: SocialTestServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  owner = await server.createUser('owner', { role: 'owner' });
  server.admin.addRule('Be kind', 'No harassment of any kind.');
  server.admin.addRule('No spam');
  server.admin.setSetting('title', 'Test Harbour');
});

afterAll(async () => {
  await server?.close();
});

describe('instance', () => {
  it('describes itself in v2 with the streaming URL, real limits, rules and contact', async () => {
    const instance = await server.masto().v2.instance.fetch();
    const host = new URL(server.url).host;
    expect(instance.domain).toBe(host);
    expect(instance.title).toBe('Test Harbour');
    expect(instance.version).toMatch(/^4\.5\.0\+homeport\./);
    // Level 2 promises grouped notifications, which exist (answering 401 without a token, not 404).
    expect(instance.apiVersions).toEqual({ mastodon: 7 });
    expect((await server.fetch(`${server.url}/api/v2/notifications`)).status).toBe(401);
    expect(instance.configuration.urls.streaming).toBe(`ws://${host}`);
    expect(instance.configuration.statuses.maxCharacters).toBe(LIMITS.statuses.max_characters);
    expect(instance.configuration.accounts.maxFeaturedTags).toBe(10);
    expect(instance.configuration.vapid.publicKey).toMatch(/^[A-Za-z0-9_-]{80,}$/);
    expect(instance.rules.map((r) => r.text)).toEqual(['Be kind', 'No spam']);
    expect(instance.contact.email).toBe('owner@example.org');
    expect(instance.contact.account?.username).toBe('owner');
    expect(instance.registrations).toMatchObject({ enabled: true, approvalRequired: true });
  });

  it('still serves v1 (megalodon reads it) with urls.streaming_api', async () => {
    const res = await server.megalodon().getInstance();
    expect(res.data.uri).toBe(new URL(server.url).host);
    expect(res.data.urls?.streaming_api).toBe(`ws://${new URL(server.url).host}`);
    expect(res.data.stats.user_count).toBe(1);
    expect(res.data.rules?.length).toBe(2);
  });

  it('lists rules, languages, peers, activity, and the about texts', async () => {
    const client = server.masto();
    const rules = (await (await server.fetch(`${server.url}/api/v1/instance/rules`)).json()) as { hint: string }[];
    expect(rules.map((r) => r.hint)).toEqual(['No harassment of any kind.', '']);
    expect(await client.v1.instance.peers.list()).toEqual([]);
    const activity = await client.v1.instance.activity.list();
    expect(activity).toHaveLength(12);
    expect(activity[0].registrations).toBe('1');
    const languages = (await (await server.fetch(`${server.url}/api/v1/instance/languages`)).json()) as {
      code: string;
      name: string;
    }[];
    expect(languages).toContainEqual({ code: 'de', name: 'German' });
    const never = (await (await server.fetch(`${server.url}/api/v1/instance/extended_description`)).json()) as {
      updated_at: string | null;
    };
    expect(never.updated_at).toBeNull();
    server.admin.setSetting('extended_description', 'A harbour for friends.\nWelcome!');
    const about = await client.v1.instance.extendedDescription.fetch();
    expect(about.content).toBe('<p>A harbour for friends.<br />Welcome!</p>');
    expect(about.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const privacy = (await (await server.fetch(`${server.url}/api/v1/instance/privacy_policy`)).json()) as {
      content: string;
    };
    expect(privacy.content).toContain('Test Harbour');
    expect((await server.fetch(`${server.url}/api/v1/instance/terms_of_service`)).status).toBe(404);
    const page = await fetch(`${server.url}/about`);
    expect(await page.text()).toContain('No harassment of any kind.');
  });

  it('finds known servers by the start of their name (peers/search)', async () => {
    const store = server.social.context.store;
    for (const domain of ['mastodon.example', 'mast_odon.example', 'other.example'])
      store.accounts.insertRemote({
        username: 'someone',
        domain,
        uri: `https://${domain}/users/someone`,
        publicKey: 'not checked here',
      });
    const search = async (q: string) =>
      (await server.call(null, 'GET', `/api/v1/peers/search?q=${encodeURIComponent(q)}`)).body;
    expect(await search('mast')).toEqual(['mast_odon.example', 'mastodon.example']);
    expect(await search('MAST_')).toEqual(['mast_odon.example']);
    expect(await search('%')).toEqual([]);
    expect(await search('')).toEqual([]);
  });

  it('publishes NodeInfo 2.0 that megalodon’s detector recognises as Mastodon-compatible', async () => {
    expect(await detector(server.url, server.axios())).toBe('mastodon');
    const links = (await (await server.fetch(`${server.url}/.well-known/nodeinfo`)).json()) as {
      links: { rel: string; href: string }[];
    };
    const info = (await (await fetch(links.links[0].href)).json()) as Record<string, any>;
    expect(info).toMatchObject({
      version: '2.0',
      software: { name: 'homeport' },
      protocols: ['activitypub'],
      openRegistrations: false,
      metadata: { upstream: { name: 'mastodon' } },
    });
    expect(info.usage.users.total).toBe(1);
  });

  it('shows the server’s domain blocks to signed-in users only', async () => {
    server.social.context.store.db
      .prepare(
        `INSERT INTO domain_blocks (id, domain, severity, public_comment, created_at, updated_at) VALUES (1, 'spam.example', 'suspend', 'spam', 0, 0)`,
      )
      .run();
    expect((await server.fetch(`${server.url}/api/v1/instance/domain_blocks`)).status).toBe(401);
    const blocks = await server.masto(owner.token).v1.instance.domainBlocks.fetch();
    expect(blocks).toEqual([
      { domain: 'spam.example', digest: expect.stringMatching(/^[0-9a-f]{64}$/), severity: 'suspend', comment: 'spam' },
    ]);
  });

  it('gives the user’s preferences', async () => {
    const prefs = await server.megalodon(owner.token).getPreferences();
    expect(prefs.data).toMatchObject({
      'posting:default:visibility': 'public',
      'posting:default:sensitive': false,
      'reading:expand:spoilers': false,
    });
  });

  it('publishes terms of service in dated versions once the owner sets them', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect((await server.fetch(`${server.url}/api/v1/instance/terms_of_service/${today}`)).status).toBe(404);
    server.admin.setSetting('terms_of_service', 'Be excellent to each other.');
    server.admin.setSetting('terms_of_service', 'Be excellent to each other.\n\nParty on.');
    const current = (await (await server.fetch(`${server.url}/api/v1/instance/terms_of_service`)).json()) as Record<
      string,
      unknown
    >;
    expect(current).toEqual({
      effective_date: today,
      effective: true,
      content: '<p>Be excellent to each other.</p><p>Party on.</p>',
      succeeded_by: null,
    });
    expect(await (await server.fetch(`${server.url}/api/v1/instance/terms_of_service/${today}`)).json()).toEqual(
      current,
    );
    expect((await server.fetch(`${server.url}/api/v1/instance/terms_of_service/2001-01-01`)).status).toBe(404);
    expect((await server.fetch(`${server.url}/api/v1/instance/terms_of_service/yesterday`)).status).toBe(404);
  });
});

import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../../testing/harness.ts';

let server: SocialTestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [alice, bob, carol, dave] = await Promise.all([
    server.createUser('alice', { role: 'owner' }),
    server.createUser('bob'),
    server.createUser('carol'),
    server.createUser('dave'),
  ]);
});

afterAll(async () => {
  await server?.close();
});

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
}

async function api(token: string | null, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await server.fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

function notificationsOf(user: TestUser) {
  return server.social.context.store.notifications
    .forAccount(user.accountId)
    .map((n) => ({ type: n.type, from: n.fromAccountId }));
}

describe('profile', () => {
  it('updates the profile with an avatar and header through masto (multipart)', async () => {
    const client = server.masto(alice.token);
    const updated = await client.v1.accounts.updateCredentials({
      displayName: 'Alice A.',
      note: 'Hello, I am @bob’s friend.\n\nSee https://example.org/about and #homeport',
      avatar: new Blob([new Uint8Array(await png(800, 600))], { type: 'image/png' }),
      header: new Blob([new Uint8Array(await png(3000, 1000))], { type: 'image/png' }),
      locked: false,
      bot: true,
      discoverable: true,
      hideCollections: false,
      fieldsAttributes: [
        { name: 'Website', value: 'https://alice.example' },
        { name: 'Pronouns', value: 'she/her' },
      ],
      source: { privacy: 'unlisted', sensitive: true, language: 'de' },
    });
    expect(updated.displayName).toBe('Alice A.');
    expect(updated.bot).toBe(true);
    expect(updated.note).toContain('<a href="https://example.org/about"');
    expect(updated.note).toContain('class="u-url mention">@<span>bob</span></a>');
    expect(updated.note).toContain('class="mention hashtag" rel="tag">#<span>homeport</span></a>');
    expect(updated.source).toMatchObject({
      privacy: 'unlisted',
      sensitive: true,
      language: 'de',
      note: 'Hello, I am @bob’s friend.\n\nSee https://example.org/about and #homeport',
    });
    expect(updated.fields.map((f) => f.name)).toEqual(['Website', 'Pronouns']);
    expect(updated.fields[0].value).toContain('href="https://alice.example"');
    expect(updated.avatar.startsWith(`${server.url}/system/accounts/avatars/`)).toBe(true);

    const avatar = await fetch(updated.avatar);
    expect(avatar.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await avatar.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([400, 400]);
    const header = await sharp(Buffer.from(await (await fetch(updated.header)).arrayBuffer())).metadata();
    expect([header.width, header.height]).toEqual([1500, 500]);

    const prefs = await client.v1.preferences.fetch();
    expect(prefs).toMatchObject({
      'posting:default:visibility': 'unlisted',
      'posting:default:sensitive': true,
      'posting:default:language': 'de',
    });
  });

  it('accepts an empty source, rejects long notes and bad images with 422, and megalodon updates with JSON', async () => {
    const emptySource = await api(bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { source: {} });
    expect(emptySource.status).toBe(200);
    const emptyForm = await server.fetch(`${server.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${bob.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'source=&display_name=Bob',
    });
    expect(emptyForm.status).toBe(200);
    expect(((await emptyForm.json()) as { display_name: string }).display_name).toBe('Bob');

    const long = await api(bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { note: 'x'.repeat(501) });
    expect(long.status).toBe(422);
    expect(long.body.details.note[0].error).toBe('ERR_TOO_LONG');
    const badPrivacy = await api(bob.token, 'PATCH', '/api/v1/accounts/update_credentials', {
      source: { privacy: 'everyone' },
    });
    expect(badPrivacy.status).toBe(422);
    expect(Object.keys(badPrivacy.body.details)).toEqual(['source[privacy]']);

    const form = new FormData();
    form.append('avatar', new Blob([Buffer.from('this is not an image')], { type: 'image/png' }), 'fake.png');
    const badImage = await server.fetch(`${server.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${bob.token}` },
      body: form,
    });
    expect(badImage.status).toBe(422);

    const megalodon = server.megalodon(bob.token);
    const res = await megalodon.updateCredentials({
      note: 'Bob here',
      locked: true,
      fields_attributes: [{ name: 'Home', value: 'Earth' }],
      source: { privacy: 'private' },
    });
    expect(res.data).toMatchObject({ locked: true, fields: [{ name: 'Home', value: 'Earth', verified_at: null }] });
    expect(res.data.source?.privacy).toBe('private');

    // An entry that is not an object (masto.js sends "undefined" for an unset field) is ignored, as Mastodon does.
    const mixed = new URLSearchParams({
      'fields_attributes[0]': 'undefined',
      'fields_attributes[1][name]': 'Pet',
      'fields_attributes[1][value]': 'Cat',
    });
    const patched = await server.fetch(`${server.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${bob.token}` },
      body: mixed,
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { fields: { name: string }[] }).fields.map((f) => f.name)).toEqual(['Pet']);
  });

  it('looks accounts up by handle (spaces tolerated) and shows suspended accounts empty', async () => {
    const client = server.masto(carol.token);
    expect((await client.v1.accounts.lookup({ acct: ' @bob ' })).id).toBe(bob.accountId);
    expect((await client.v1.accounts.lookup({ acct: `bob@${new URL(server.url).host}` })).id).toBe(bob.accountId);
    await expect(client.v1.accounts.lookup({ acct: 'nobody' })).rejects.toMatchObject({ statusCode: 404 });
    expect((await client.v1.accounts.fetch({ id: [bob.accountId, dave.accountId] })).map((a) => a.username)).toEqual([
      'bob',
      'dave',
    ]);
    const found = await client.v1.accounts.search.list({ q: 'bo' });
    expect(found.map((a) => a.username)).toContain('bob');

    const zed = await server.createUser('zed');
    await server.masto(zed.token).v1.accounts.updateCredentials({ displayName: 'Zed', note: 'secret' });
    server.admin.applyUserAction('zed', 'suspend');
    const suspended = await client.v1.accounts.$select(zed.accountId).fetch();
    expect(suspended).toMatchObject({ suspended: true, displayName: '', note: '', fields: [] });
    expect(await client.v1.accounts.$select(zed.accountId).followers.list()).toEqual([]);
    await expect(server.masto(zed.token).v1.accounts.verifyCredentials()).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('follows', () => {
  it('asks to follow a locked account; the owner authorizes and is notified of the new follower', async () => {
    // bob locked his account in the test above.
    const rel = await server
      .masto(alice.token)
      .v1.accounts.$select(bob.accountId)
      .follow({ reblogs: false, notify: true });
    expect(rel).toMatchObject({ following: false, requested: true, showingReblogs: false, notifying: true });
    expect(rel).not.toHaveProperty('blockedBy');
    expect(notificationsOf(bob)).toContainEqual({ type: 'follow_request', from: alice.accountId });

    const bobClient = server.megalodon(bob.token);
    const requests = await bobClient.getFollowRequests();
    expect(requests.data.map((a) => ('acct' in a ? a.acct : ''))).toEqual(['alice']);
    const accepted = await bobClient.acceptFollowRequest(alice.accountId);
    expect(accepted.data).toMatchObject({ followed_by: true, requested_by: false });

    const after = (await server.masto(alice.token).v1.accounts.relationships.fetch({ id: [bob.accountId] }))[0];
    expect(after).toMatchObject({ following: true, requested: false, showingReblogs: false, notifying: true });
    expect(notificationsOf(bob)).toContainEqual({ type: 'follow', from: alice.accountId });
    expect(notificationsOf(bob)).not.toContainEqual({ type: 'follow_request', from: alice.accountId });

    // Following again only changes the options that are given.
    const changed = await server.masto(alice.token).v1.accounts.$select(bob.accountId).follow({ reblogs: true });
    expect(changed).toMatchObject({ following: true, showingReblogs: true, notifying: true });
  });

  it('rejects follow requests, follows unlocked accounts at once, and removes followers', async () => {
    await server.masto(carol.token).v1.accounts.$select(bob.accountId).follow();
    const rejected = await server.megalodon(bob.token).rejectFollowRequest(carol.accountId);
    // megalodon's entity type predates requested_by; the server sends it.
    expect((rejected.data as unknown as { requested_by: boolean }).requested_by).toBe(false);
    expect(
      (await server.masto(carol.token).v1.accounts.relationships.fetch({ id: [bob.accountId] }))[0].requested,
    ).toBe(false);
    await expect(server.masto(bob.token).v1.followRequests.$select(carol.accountId).authorize()).rejects.toMatchObject({
      statusCode: 404,
    });

    const direct = await server.masto(carol.token).v1.accounts.$select(dave.accountId).follow();
    expect(direct).toMatchObject({ following: true, requested: false, showingReblogs: true });
    expect(notificationsOf(dave)).toContainEqual({ type: 'follow', from: carol.accountId });
    const removed = (await server
      .masto(dave.token)
      .v1.accounts.$select(carol.accountId)
      .removeFromFollowers()) as unknown as { followedBy: boolean };
    expect(removed.followedBy).toBe(false);
    // Mastodon deletes the follow notification with the follow.
    const follows = await server.masto(dave.token).v1.notifications.list({ types: ['follow'] });
    expect(follows.map((n) => n.account.id)).not.toContain(carol.accountId);
    expect(notificationsOf(dave)).not.toContainEqual({ type: 'follow', from: carol.accountId });
    await expect(server.masto(carol.token).v1.accounts.$select(carol.accountId).follow()).rejects.toMatchObject({
      statusCode: 403,
    });
  });

  it('lists followers and following with Link pagination, familiar followers, and the legacy /api/v1/follows', async () => {
    // dave and carol follow alice.
    for (const u of [carol, dave]) await server.masto(u.token).v1.accounts.$select(alice.accountId).follow();
    const first = await api(null, 'GET', `/api/v1/accounts/${alice.accountId}/followers?limit=1`);
    expect(first.body).toHaveLength(1);
    const link = first.headers.get('link')!;
    expect(link).toMatch(
      /^<http:\/\/127\.0\.0\.1:\d+\/api\/v1\/accounts\/\d+\/followers\?limit=1&max_id=\d+>; rel="next", <http:.*min_id=\d+>; rel="prev"$/,
    );
    const all: string[] = [];
    for await (const page of server.masto(bob.token).v1.accounts.$select(alice.accountId).followers.list({ limit: 1 }))
      all.push(...page.map((a) => a.username));
    expect(all.sort()).toEqual(['carol', 'dave']);

    // bob follows dave, who follows alice: dave is a familiar follower of alice for bob.
    await server.masto(bob.token).v1.accounts.$select(dave.accountId).follow();
    // masto types this parameter as a bare array, which it encodes as `0=…`; Mastodon reads `id[]`.
    const familiar = await server
      .masto(bob.token)
      .v1.accounts.familiarFollowers.fetch({ id: [alice.accountId] } as unknown as string[]);
    expect(familiar).toEqual([{ id: alice.accountId, accounts: [expect.objectContaining({ username: 'dave' })] }]);

    const legacy = await api(carol.token, 'POST', '/api/v1/follows', { uri: 'alice' });
    expect(legacy.status).toBe(200);
    expect(legacy.body.username).toBe('alice');
    expect(legacy.headers.get('deprecation')).toMatch(/^@\d+$/);

    // Hidden collections: only the owner sees them.
    await server.masto(alice.token).v1.accounts.updateCredentials({ hideCollections: true });
    expect(await server.masto(bob.token).v1.accounts.$select(alice.accountId).followers.list()).toEqual([]);
    expect((await server.masto(alice.token).v1.accounts.$select(alice.accountId).followers.list()).length).toBe(2);
    await server.masto(alice.token).v1.accounts.updateCredentials({ hideCollections: false });
  });
});

describe('mutes, blocks, notes, domain blocks', () => {
  it('mutes with a duration and a notifications flag; muting again updates the flag', async () => {
    const client = server.masto(alice.token);
    const muted = await client.v1.accounts.$select(dave.accountId).mute({ duration: 3600, notifications: false });
    expect(muted).toMatchObject({ muting: true, mutingNotifications: false });
    const list = await api(alice.token, 'GET', '/api/v1/mutes');
    expect(list.body).toHaveLength(1);
    // The exact expiry is checked on an injected clock in domain/expiry.test.ts.
    expect(Number.isNaN(Date.parse(list.body[0].mute_expires_at))).toBe(false);
    expect((muted as unknown as { mutingExpiresAt: string }).mutingExpiresAt).toBe(list.body[0].mute_expires_at);

    const megalodon = server.megalodon(alice.token);
    const again = await megalodon.muteAccount(dave.accountId, true);
    expect(again.data).toMatchObject({ muting: true, muting_notifications: true });
    // Own follower lists still show muted accounts; others' lists do not.
    expect((await client.v1.accounts.$select(alice.accountId).followers.list()).map((a) => a.username)).toContain(
      'dave',
    );
    expect((await client.v1.accounts.$select(bob.accountId).following.list()).map((a) => a.username)).not.toContain(
      'dave',
    );
    await megalodon.unmuteAccount(dave.accountId);
    expect((await client.v1.mutes.list()).length).toBe(0);
    const badDuration = await api(alice.token, 'POST', `/api/v1/accounts/${dave.accountId}/mute`, { duration: 'soon' });
    expect(badDuration.status).toBe(422);
  });

  it('blocks: severs follows both ways, hides the blocker from the blocked, and never reveals blocked_by', async () => {
    const client = server.masto(alice.token);
    const blocked = await client.v1.accounts.$select(dave.accountId).block();
    expect(blocked).toMatchObject({ blocking: true, following: false, followedBy: false });
    expect((await client.v1.blocks.list()).map((a) => a.username)).toEqual(['dave']);

    const daveView = (await api(dave.token, 'GET', `/api/v1/accounts/relationships?id[]=${alice.accountId}`)).body[0];
    expect(daveView).not.toHaveProperty('blocked_by');
    expect(daveView.following).toBe(false);
    await expect(server.masto(dave.token).v1.accounts.$select(alice.accountId).follow()).rejects.toMatchObject({
      statusCode: 403,
    });
    expect(await server.masto(dave.token).v1.accounts.$select(alice.accountId).followers.list()).toEqual([]);
    expect((await client.v1.accounts.$select(alice.accountId).followers.list()).map((a) => a.username)).not.toContain(
      'dave',
    );

    const unblocked = await client.v1.accounts.$select(dave.accountId).unblock();
    expect(unblocked.blocking).toBe(false);
  });

  it('keeps private notes on accounts', async () => {
    const rel = await server
      .masto(alice.token)
      .v1.accounts.$select(carol.accountId)
      .note.create({ comment: 'met at the conference' });
    expect(rel.note).toBe('met at the conference');
    const viaMegalodon = await server.megalodon(alice.token).setAccountNote(carol.accountId, '');
    expect(viaMegalodon.data.note).toBe('');
    const tooLong = await api(alice.token, 'POST', `/api/v1/accounts/${carol.accountId}/note`, {
      comment: 'x'.repeat(2001),
    });
    expect(tooLong.status).toBe(422);
  });

  it('blocks whole domains for the user, with Link pagination', async () => {
    const store = server.social.context.store;
    const remote = store.accounts.insertRemote({
      username: 'eve',
      domain: 'remote.example',
      uri: 'https://remote.example/users/eve',
      publicKey: '',
    });
    const client = server.masto(alice.token);
    const pending = await client.v1.accounts.$select(remote).follow();
    expect(pending).toMatchObject({ requested: true, following: false });

    const megalodon = server.megalodon(alice.token);
    await megalodon.blockDomain('remote.example');
    await megalodon.blockDomain('https://other.example/some/page');
    expect((await client.v1.accounts.relationships.fetch({ id: [remote] }))[0].domainBlocking).toBe(true);
    const page = await api(alice.token, 'GET', '/api/v1/domain_blocks?limit=1');
    expect(page.body).toEqual(['other.example']);
    expect(page.headers.get('link')).toContain('rel="next"');
    const rest = await api(
      alice.token,
      'GET',
      new URL(page.headers.get('link')!.match(/<([^>]+)>; rel="next"/)![1]).pathname +
        '?' +
        new URL(page.headers.get('link')!.match(/<([^>]+)>; rel="next"/)![1]).searchParams,
    );
    expect(rest.body).toEqual(['remote.example']);
    expect(await api(alice.token, 'DELETE', '/api/v1/domain_blocks', { domain: 'remote.example' })).toMatchObject({
      status: 200,
      body: {},
    });
    expect((await api(alice.token, 'POST', '/api/v1/domain_blocks', {})).status).toBe(400);
    expect((await api(alice.token, 'POST', '/api/v1/domain_blocks', { domain: 'not a domain' })).status).toBe(422);
    expect((await client.v1.domainBlocks.list()).length).toBe(1);
  });
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { blob, pngImage } from '../testing/media-fixtures.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp, startSocialWithClock, type SocialTestServer, type TestUser } from '../testing/harness.ts';

// The social server on an injected clock: expiries are tested by moving the clock, not by waiting.
let now = Date.parse('2030-01-01T12:00:00Z');
let server: SocialTestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = await startSocialWithClock(() => now);
  alice = await server.createUser('alice');
  bob = await server.createUser('bob');
});

afterAll(async () => {
  await server?.close();
});

describe('expiry', () => {
  it('ends a mute when its duration has passed', async () => {
    const client = server.masto(alice.token);
    const muted = await client.v1.accounts.$select(bob.accountId).mute({ duration: 60 });
    expect(muted).toMatchObject({ muting: true, mutingNotifications: true });
    const [listed] = await client.v1.mutes.list();
    // MutedAccount's field; masto types the list as plain accounts.
    expect((listed as unknown as { muteExpiresAt: string }).muteExpiresAt).toBe('2030-01-01T12:01:00.000Z');

    now += 59_000;
    expect((await client.v1.accounts.relationships.fetch({ id: [bob.accountId] }))[0].muting).toBe(true);
    now += 2_000;
    expect((await client.v1.accounts.relationships.fetch({ id: [bob.accountId] }))[0].muting).toBe(false);
    expect(await client.v1.mutes.list()).toEqual([]);
    expect(server.social.context.store.relationships.purgeExpiredMutes()).toBe(1);

    // A mute without duration lasts.
    await client.v1.accounts.$select(bob.accountId).mute({ duration: 0 });
    now += 365 * 24 * 3600 * 1000;
    expect((await client.v1.accounts.relationships.fetch({ id: [bob.accountId] }))[0]).toMatchObject({
      muting: true,
      mutingExpiresAt: null,
    });
  });

  it('refuses authorization codes older than ten minutes', async () => {
    const app = await registerApp(server, { redirectUris: 'urn:ietf:wg:oauth:2.0:oob' });
    const store = server.social.context.store;
    const oauthApp = store.oauth.appByClientId(app.clientId!)!;
    const user = store.users.byAccountId(alice.accountId)!;
    const verifier = crypto.randomBytes(40).toString('base64url');
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    const code = store.oauth.createGrant({
      applicationId: oauthApp.id,
      userId: user.id,
      redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: ['read'],
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
    now += 10 * 60 * 1000 + 1;
    const res = await server.fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
        code_verifier: verifier,
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('removes uploads never attached to a post after a day, files included, and keeps attached ones', async () => {
    const client = server.masto(alice.token);
    const lonely = await client.v1.media.create({ file: blob(await pngImage(40, 30), 'image/png') });
    const used = await client.v1.media.create({ file: blob(await pngImage(40, 30), 'image/png') });
    await client.v1.statuses.create({ status: 'with a picture', mediaIds: [used.id] });
    const media = server.social.context.media;
    const lonelyFile = media.absolute(server.social.context.store.media.byId(lonely.id)!.filePath!);
    expect(fs.existsSync(lonelyFile)).toBe(true);

    now += 23 * 3600 * 1000;
    expect(await server.social.context.mediaService.purgeUnattached()).toBe(0);
    now += 2 * 3600 * 1000;
    expect(await server.social.context.mediaService.purgeUnattached()).toBe(1);
    expect(fs.existsSync(lonelyFile)).toBe(false);
    expect(
      (
        await server.fetch(`${server.url}/api/v1/media/${lonely.id}`, {
          headers: { Authorization: `Bearer ${alice.token}` },
        })
      ).status,
    ).toBe(404);
    expect(server.social.context.store.media.byId(used.id)).not.toBeNull();
  });

  it('cleans half-written files of interrupted uploads (start-up runs this before serving)', async () => {
    const dir = path.join(server.social.context.media.root, 'media_attachments', 'files');
    fs.mkdirSync(dir, { recursive: true });
    const stale = path.join(dir, 'abc.png.4242.tmp');
    fs.writeFileSync(stale, 'half');
    expect(await server.social.context.media.removeInterruptedWrites()).toBe(1);
    expect(fs.existsSync(stale)).toBe(false);
  });

  it('publishes scheduled statuses by its own timer once the clock reaches them, and drops or adapts those that can no longer go out as written', async () => {
    const client = server.masto(alice.token);
    const parent = await server.masto(bob.token).v1.statuses.create({ status: 'a parent that will be gone' });
    const at = new Date(now + 10 * 60 * 1000).toISOString();
    await client.v1.statuses.create({ status: 'scheduled hello', scheduledAt: at });
    await client.v1.statuses.create({
      status: 'a reply to a vanished post',
      inReplyToId: parent.id,
      scheduledAt: at,
    });
    const carol = await server.createUser('carol');
    await server
      .masto(carol.token)
      .v1.statuses.create({ status: 'from an account about to be suspended', scheduledAt: at });
    await server.masto(bob.token).v1.statuses.$select(parent.id).remove();
    server.admin.applyUserAction('carol', 'suspend');

    now += 11 * 60 * 1000;
    // Nobody calls the job: the timer notices the moved clock on its next look.
    await expect
      .poll(async () => (await client.v1.accounts.$select(alice.accountId).statuses.list()).map((s) => s.content), {
        timeout: 5000,
        interval: 50,
      })
      .toEqual(expect.arrayContaining(['<p>scheduled hello</p>', '<p>a reply to a vanished post</p>']));
    const published = await client.v1.accounts.$select(alice.accountId).statuses.list();
    // The reply's parent is gone: it goes out as a new thread, as Mastodon does.
    expect(published.find((s) => s.content === '<p>a reply to a vanished post</p>')!.inReplyToId).toBeNull();
    // The suspended account's status is dropped, not published, and no longer scheduled.
    expect(server.social.context.store.scheduled.due(now, 10)).toEqual([]);
    const carolsStatuses = server.social.context.store.db
      .prepare('SELECT COUNT(*) AS n FROM statuses WHERE account_id = ?')
      .get(carol.accountId) as { n: bigint };
    expect(Number(carolsStatuses.n)).toBe(0);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { MASTODON_API_VERSION } from '../limits.ts';
import { useSocialTestServer } from '../testing/use-server.ts';
import { blob, pngImage } from '../testing/media-fixtures.ts';

/*
 * `api_versions.mastodon` is a promise: clients turn features on by it (Phanpy offers quote posts from 7).
 * Each level Mastodon documents (docs' version histories, "mastodon API version N") is walked here through
 * the API, so the number advertised is the highest one whose every feature works. Level 6 names no feature
 * in Mastodon's documentation (it was the 4.5 development number before quotes became 7).
 */

const t = useSocialTestServer('alice', 'bob');

beforeAll(async () => {
  await t.server.masto(t.bob.token).v1.accounts.$select(t.alice.accountId).follow();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  t.server.call(token, method, path, body);

describe('api_versions.mastodon', () => {
  it('is advertised at 7 by the instance document', async () => {
    expect(MASTODON_API_VERSION).toBe(7);
    expect((await call(null, 'GET', '/api/v2/instance')).body.api_versions).toEqual({ mastodon: 7 });
  });

  it('level 3: attribution domains on the profile', async () => {
    const updated = await call(t.alice.token, 'PATCH', '/api/v1/accounts/update_credentials', {
      attribution_domains: ['blog.example', 'news.example'],
    });
    expect(updated.body.source.attribution_domains).toEqual(['blog.example', 'news.example']);
    expect((await call(t.alice.token, 'GET', '/api/v1/accounts/verify_credentials')).body.source).toMatchObject({
      attribution_domains: ['blog.example', 'news.example'],
    });
  });

  it('level 4: unattached media are deleted, and a deleted post’s media go with delete_media', async () => {
    const upload = async () =>
      t.server.masto(t.alice.token).v2.media.create({ file: blob(await pngImage(40, 30), 'image/png') });
    const loose = await upload();
    expect((await call(t.alice.token, 'DELETE', `/api/v1/media/${loose.id}`)).status).toBe(200);
    expect((await call(t.alice.token, 'GET', `/api/v1/media/${loose.id}`)).status).toBe(404);

    const attached = await upload();
    const post = await t.server
      .masto(t.alice.token)
      .v1.statuses.create({ status: 'a picture', mediaIds: [attached.id] });
    expect((await call(t.alice.token, 'DELETE', `/api/v1/media/${attached.id}`)).status).toBe(422);
    const deleted = await call(t.alice.token, 'DELETE', `/api/v1/statuses/${post.id}?delete_media=true`);
    expect(deleted.status).toBe(200);
    expect((await call(t.alice.token, 'GET', `/api/v1/media/${attached.id}`)).status).toBe(404);
  });

  it('level 5: filters that blur', async () => {
    const filter = await call(t.bob.token, 'POST', '/api/v2/filters', {
      title: 'spoilers',
      context: ['home'],
      filter_action: 'blur',
      keywords_attributes: [{ keyword: 'finale' }],
    });
    expect(filter.body.filter_action).toBe('blur');
    const post = await t.server.masto(t.alice.token).v1.statuses.create({ status: 'the finale was something' });
    const home = (await call(t.bob.token, 'GET', '/api/v1/timelines/home')).body as {
      id: string;
      filtered?: { filter: { filter_action: string } }[];
    }[];
    expect(home.find((s) => s.id === post.id)?.filtered?.[0].filter.filter_action).toBe('blur');
  });

  it('level 7: quote posts, their policies, notifications, push alerts and preferences', async () => {
    const settings = await call(t.alice.token, 'PATCH', '/api/v1/accounts/update_credentials', {
      source: { quote_policy: 'followers' },
    });
    expect(settings.body.source.quote_policy).toBe('followers');
    expect((await call(t.alice.token, 'GET', '/api/v1/preferences')).body['posting:default:quote_policy']).toBe(
      'followers',
    );

    const original = await t.server.masto(t.alice.token).v1.statuses.create({ status: 'worth quoting' });
    expect(original.quoteApproval).toMatchObject({ automatic: ['followers'] });
    const quote = await t.server
      .masto(t.bob.token)
      .v1.statuses.create({ status: 'indeed', quotedStatusId: original.id, quoteApprovalPolicy: 'nobody' });
    expect(quote.quote).toMatchObject({ state: 'accepted', quotedStatus: { id: original.id } });
    expect((await t.server.masto(t.bob.token).v1.statuses.$select(original.id).quotes.list()).map((s) => s.id)).toEqual(
      [quote.id],
    );
    expect((await t.server.masto(t.bob.token).v1.statuses.$select(original.id).fetch()).quotesCount).toBe(1);

    const policy = await call(t.bob.token, 'PUT', `/api/v1/statuses/${quote.id}/interaction_policy`, {
      quote_approval_policy: 'public',
    });
    expect(policy.body.quote_approval.automatic).toEqual(['public']);

    await t.server.masto(t.alice.token).v1.statuses.$select(original.id).update({ status: 'worth quoting, edited' });
    const types = async () =>
      (await call(t.bob.token, 'GET', '/api/v1/notifications?types[]=quoted_update')).body.map(
        (n: { type: string }) => n.type,
      );
    expect(await types()).toEqual(['quoted_update']);
    const grouped = await call(t.alice.token, 'GET', '/api/v2/notifications?types[]=quote');
    expect(grouped.body.notification_groups.map((g: { type: string }) => g.type)).toEqual(['quote']);

    const push = await call(t.bob.token, 'POST', '/api/v1/push/subscription', {
      subscription: {
        endpoint: 'https://push.example/bob',
        keys: {
          p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
          auth: 'BTBZMqHH6r4Tts7J_aSIgg',
        },
      },
      data: { alerts: { quote: true, quoted_update: true } },
    });
    expect(push.body.alerts).toMatchObject({ quote: true, quoted_update: true });

    const revoked = await call(t.alice.token, 'POST', `/api/v1/statuses/${original.id}/quotes/${quote.id}/revoke`);
    expect(revoked.body.quote.state).toBe('revoked');
  });
});

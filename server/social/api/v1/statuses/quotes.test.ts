import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../../testing/harness.ts';

/* Quote posts (Mastodon 4.5): quoting by policy, the Quote entity as each viewer sees it, listing and revoking. */

let server: SocialTestServer;
let author: TestUser;
let quoter: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [author, quoter, stranger] = await Promise.all(['author', 'quoter', 'stranger'].map((u) => server.createUser(u)));
  await server.masto(quoter.token).v1.accounts.$select(author.accountId).follow();
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  server.call(token, method, path, body);

describe('quote posts', () => {
  it('quotes a post its policy allows, notifies its author, counts and lists the quotes, and lets the author revoke one', async () => {
    const original = await server.masto(author.token).v1.statuses.create({ status: 'quotable thought' });
    const made = await call(quoter.token, 'POST', '/api/v1/statuses', {
      status: 'so true',
      quoted_status_id: original.id,
    });
    expect(made.status).toBe(200);
    expect(made.body.quote).toMatchObject({
      state: 'accepted',
      quoted_status: { id: original.id, content: original.content, quote: null },
    });

    const notes = await call(author.token, 'GET', '/api/v1/notifications?types[]=quote');
    expect(notes.body.map((n: { type: string; status: { id: string } }) => [n.type, n.status.id])).toEqual([
      ['quote', made.body.id],
    ]);
    expect((await call(stranger.token, 'GET', `/api/v1/statuses/${original.id}`)).body.quotes_count).toBe(1);
    expect(
      (await call(stranger.token, 'GET', `/api/v1/statuses/${original.id}/quotes`)).body.map(
        (s: { id: string }) => s.id,
      ),
    ).toEqual([made.body.id]);

    // A quote of a quote shows the inner one shallowly.
    const nested = await call(stranger.token, 'POST', '/api/v1/statuses', {
      status: 'meta',
      quoted_status_id: made.body.id,
    });
    expect(nested.body.quote.quoted_status.quote).toEqual({ state: 'accepted', quoted_status_id: original.id });

    // Timeline pages (written from cached pieces) show quotes the same way.
    const home = await call(quoter.token, 'GET', '/api/v1/timelines/home');
    expect(home.body.find((s: { id: string }) => s.id === made.body.id).quote.quoted_status.id).toBe(original.id);

    expect(
      (await call(stranger.token, 'POST', `/api/v1/statuses/${original.id}/quotes/${made.body.id}/revoke`)).status,
    ).toBe(403);
    const revoked = await call(author.token, 'POST', `/api/v1/statuses/${original.id}/quotes/${made.body.id}/revoke`);
    expect(revoked.body).toMatchObject({ id: made.body.id, quote: { state: 'revoked', quoted_status: null } });
    expect((await call(stranger.token, 'GET', `/api/v1/statuses/${original.id}`)).body.quotes_count).toBe(0);
    expect((await call(stranger.token, 'GET', `/api/v1/statuses/${original.id}/quotes`)).body).toEqual([]);
  });

  it('refuses quotes the policy does not allow, and shows deleted and hidden quoted posts by state', async () => {
    const followersOnly = await call(author.token, 'POST', '/api/v1/statuses', {
      status: 'for followers to quote',
      quote_approval_policy: 'followers',
    });
    expect(
      (
        await call(stranger.token, 'POST', '/api/v1/statuses', {
          status: 'no',
          quoted_status_id: followersOnly.body.id,
        })
      ).status,
    ).toBe(403);
    expect(
      (await call(quoter.token, 'POST', '/api/v1/statuses', { status: 'yes', quoted_status_id: followersOnly.body.id }))
        .status,
    ).toBe(200);
    const secret = await server.masto(author.token).v1.statuses.create({ status: 'private', visibility: 'private' });
    expect(
      (await call(quoter.token, 'POST', '/api/v1/statuses', { status: 'leak', quoted_status_id: secret.id })).status,
    ).toBe(403);
    expect(
      (await call(quoter.token, 'POST', '/api/v1/statuses', { status: 'nothing', quoted_status_id: '1' })).status,
    ).toBe(404);

    const doomed = await server.masto(author.token).v1.statuses.create({ status: 'soon gone' });
    const quoting = await server
      .masto(quoter.token)
      .v1.statuses.create({ status: 'about that', quotedStatusId: doomed.id } as never);
    await server.masto(stranger.token).v1.accounts.$select(author.accountId).mute();
    expect((await call(stranger.token, 'GET', `/api/v1/statuses/${quoting.id}`)).body.quote).toMatchObject({
      state: 'muted_account',
      quoted_status: { id: doomed.id },
    });
    await server.masto(author.token).v1.statuses.$select(doomed.id).remove();
    expect((await call(quoter.token, 'GET', `/api/v1/statuses/${quoting.id}`)).body.quote).toEqual({
      state: 'deleted',
      quoted_status: null,
    });
  });
});

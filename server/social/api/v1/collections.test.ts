import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/* Collections (Mastodon 4.6): curated sets of accounts, their items, and a featured account taking itself out. */

let server: SocialTestServer;
let curator: TestUser;
let alice: TestUser;
let bob: TestUser;
let shy: TestUser;
let reader: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [curator, alice, bob, shy, reader] = await Promise.all(
    ['curator', 'alice', 'bob', 'shy', 'reader'].map((u) => server.createUser(u)),
  );
  for (const user of [alice, bob]) await server.masto(user.token).v1.accounts.updateCredentials({ discoverable: true });
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  server.call(token, method, path, body);

describe('collections', () => {
  it('creates, shows, edits and deletes a collection of accounts', async () => {
    const created = await call(curator.token, 'POST', '/api/v1/collections', {
      name: 'Good people',
      description: 'Worth following',
      tag_name: 'discovery',
      language: 'en',
      account_ids: [alice.accountId],
    });
    expect(created.status).toBe(200);
    const collection = created.body.collection;
    expect(collection).toMatchObject({
      name: 'Good people',
      description: 'Worth following',
      language: 'en',
      account_id: curator.accountId,
      local: true,
      item_count: 1,
      tag: { name: 'discovery' },
    });
    expect(collection.items).toMatchObject([{ account_id: alice.accountId, state: 'accepted' }]);

    const added = await call(curator.token, 'POST', `/api/v1/collections/${collection.id}/items`, {
      account_id: bob.accountId,
    });
    expect(added.body.collection_item).toMatchObject({ account_id: bob.accountId, state: 'accepted' });
    expect(
      (await call(curator.token, 'POST', `/api/v1/collections/${collection.id}/items`, { account_id: bob.accountId }))
        .status,
    ).toBe(422);
    // Only accounts that chose to be discoverable can be featured.
    expect(
      (await call(curator.token, 'POST', `/api/v1/collections/${collection.id}/items`, { account_id: shy.accountId }))
        .status,
    ).toBe(403);

    const shown = await call(null, 'GET', `/api/v1/collections/${collection.id}`);
    expect(shown.body.collection.item_count).toBe(2);
    expect(shown.body.accounts.map((a: { id: string }) => a.id).sort()).toEqual(
      [curator.accountId, alice.accountId, bob.accountId].sort(),
    );

    const listed = await call(null, 'GET', `/api/v1/accounts/${curator.accountId}/collections`);
    expect(listed.body.collections.map((c: { id: string }) => c.id)).toEqual([collection.id]);
    const featuring = await call(reader.token, 'GET', `/api/v1/accounts/${alice.accountId}/in_collections`);
    expect(featuring.body.collections.map((c: { id: string }) => c.id)).toEqual([collection.id]);

    const edited = await call(curator.token, 'PATCH', `/api/v1/collections/${collection.id}`, {
      name: 'Great people',
      sensitive: true,
      tag_name: '',
    });
    expect(edited.body.collection).toMatchObject({
      name: 'Great people',
      sensitive: true,
      tag: null,
      description: 'Worth following',
    });
    expect(
      (await call(curator.token, 'PATCH', `/api/v1/collections/${collection.id}`, { name: 'x'.repeat(41) })).status,
    ).toBe(422);
    expect(
      (await call(reader.token, 'PATCH', `/api/v1/collections/${collection.id}`, { name: 'mine now' })).status,
    ).toBe(403);

    const itemId = added.body.collection_item.id as string;
    expect((await call(curator.token, 'DELETE', `/api/v1/collections/${collection.id}/items/${itemId}`)).status).toBe(
      200,
    );
    expect((await call(null, 'GET', `/api/v1/collections/${collection.id}`)).body.collection.item_count).toBe(1);

    expect((await call(reader.token, 'DELETE', `/api/v1/collections/${collection.id}`)).status).toBe(403);
    expect((await call(curator.token, 'DELETE', `/api/v1/collections/${collection.id}`)).status).toBe(200);
    expect((await call(null, 'GET', `/api/v1/collections/${collection.id}`)).status).toBe(404);
  });

  it('lets a featured account take itself out, after which it cannot be added back', async () => {
    const { body } = await call(curator.token, 'POST', '/api/v1/collections', {
      name: 'Friends',
      account_ids: [alice.accountId, bob.accountId],
    });
    const id = body.collection.id as string;
    const aliceItem = body.collection.items.find((i: { account_id: string }) => i.account_id === alice.accountId)
      .id as string;
    expect((await call(bob.token, 'POST', `/api/v1/collections/${id}/items/${aliceItem}/revoke`)).status).toBe(403);
    expect((await call(alice.token, 'POST', `/api/v1/collections/${id}/items/${aliceItem}/revoke`)).status).toBe(200);
    expect(
      (await call(null, 'GET', `/api/v1/collections/${id}`)).body.collection.items.map(
        (i: { account_id: string }) => i.account_id,
      ),
    ).toEqual([bob.accountId]);
    expect(
      (await call(curator.token, 'POST', `/api/v1/collections/${id}/items`, { account_id: alice.accountId })).status,
    ).toBe(403);

    // Someone the curator blocks sees nothing of theirs.
    await server.masto(curator.token).v1.accounts.$select(reader.accountId).block();
    expect((await call(reader.token, 'GET', `/api/v1/collections/${id}`)).status).toBe(403);
    expect((await call(null, 'POST', '/api/v1/collections', { name: 'anonymous' })).status).toBe(401);
  });
});

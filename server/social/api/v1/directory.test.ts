import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/* The profile directory through masto.js and fetch: only accounts that chose to be listed, by activity or age, without blocked ones; /health. */

let server: SocialTestServer;
let users: TestUser[];

beforeAll(async () => {
  server = await startSocialTestServer();
  // One after the other: the directory's "new" order is the order of creation.
  users = [];
  for (const name of ['ann', 'ben', 'cat']) users.push(await server.createUser(name));
});

afterAll(async () => {
  await server?.close();
});

describe('profile directory', () => {
  it('lists discoverable accounts, most recently active or newest first, leaving out blocked ones', async () => {
    const [ann, ben, cat] = users;
    await server.masto(ann.token).v1.accounts.updateCredentials({ discoverable: true });
    await server.masto(cat.token).v1.accounts.updateCredentials({ discoverable: true });
    await server.masto(ann.token).v1.statuses.create({ status: 'active now' });
    const anonymous = await server.masto().v1.directory.list({ order: 'active' });
    expect(anonymous.map((a) => a.username)).toEqual(['ann', 'cat']);
    expect((await server.masto().v1.directory.list({ order: 'new' })).map((a) => a.username)).toEqual(['cat', 'ann']);
    expect(
      (await server.masto().v1.directory.list({ order: 'new', limit: 1, offset: 1 })).map((a) => a.username),
    ).toEqual(['ann']);
    await server.masto(ann.token).v1.accounts.$select(cat.accountId).block();
    expect((await server.masto(ann.token).v1.directory.list()).map((a) => a.username)).toEqual(['ann']);
    void ben;
  });

  it('answers /health', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK');
  });
});

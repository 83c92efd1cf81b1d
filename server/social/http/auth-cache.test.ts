import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';

/*
 * Tokens are resolved once and reused while nothing has been written (the principal cache): a revocation or
 * suspension, in this process or by another one on the same database (the admin CLI), ends access at the
 * next request all the same.
 */

let server: SocialTestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  user = await server.createUser('cached');
});

afterAll(async () => {
  await server?.close();
});

const me = (token: string) =>
  server.fetch(`${server.url}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${token}` } });

describe('the principal cache', () => {
  it('sees a token revoked by another connection to the database at the next request', async () => {
    expect((await me(user.token)).status).toBe(200);
    expect((await me(user.token)).status).toBe(200);
    // Another process (as the admin CLI would be) revokes every token of the user.
    const other = new Database(path.join(server.dir, 'social.db'));
    try {
      other
        .prepare('UPDATE oauth_access_tokens SET revoked_at = ? WHERE user_id = (SELECT id FROM users WHERE email = ?)')
        .run(Date.now(), user.email);
    } finally {
      other.close();
    }
    expect((await me(user.token)).status).toBe(401);
  });

  it('sees a suspension made in this process at the next request', async () => {
    const other = await server.createUser('suspended');
    expect((await me(other.token)).status).toBe(200);
    server.admin.applyUserAction('suspended', 'suspend');
    expect((await me(other.token)).status).not.toBe(200);
  });
});

import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';

/*
 * Tokens are resolved once and reused while none of their rows (token, application, user, local account)
 * has been written (the principal cache): a revocation, suspension, role or profile change, in this process
 * or by another one on the same database (the admin CLI), shows at the next request all the same, while
 * posting (a write to other tables) leaves the cache alone.
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

  it('keeps resolved tokens across posts, and sees a profile, role or account deletion at the next request', async () => {
    const poster = await server.createUser('poster');
    const oauth = server.social.context.store.oauth;
    const original = oauth.tokenBySecret;
    let lookups = 0;
    oauth.tokenBySecret = (secret) => {
      lookups++;
      return original.call(oauth, secret);
    };
    try {
      expect((await me(poster.token)).status).toBe(200);
      const first = lookups;
      for (let i = 0; i < 3; i++)
        expect((await server.call(poster.token, 'POST', '/api/v1/statuses', { status: `post ${i}` })).status).toBe(200);
      expect((await me(poster.token)).status).toBe(200);
      // Posting wrote statuses, feeds and counters, none of the token's rows: no lookup after the first.
      expect(lookups).toBe(first);

      const renamed = await server.call(poster.token, 'PATCH', '/api/v1/accounts/update_credentials', {
        display_name: 'Renamed',
      });
      expect(renamed.status).toBe(200);
      expect((await me(poster.token).then((r) => r.json())).display_name).toBe('Renamed');

      server.admin.setRole('poster', 'moderator');
      expect((await me(poster.token).then((r) => r.json())).role.name).toBe('Moderator');
      server.admin.applyUserAction('poster', 'delete');
      expect((await me(poster.token)).status).toBe(401);
    } finally {
      oauth.tokenBySecret = original;
    }
  });

  it('sees a suspension made in this process at the next request', async () => {
    const other = await server.createUser('suspended');
    expect((await me(other.token)).status).toBe(200);
    server.admin.applyUserAction('suspended', 'suspend');
    expect((await me(other.token)).status).not.toBe(200);
  });

  it("reads SQLite's data_version once for a request's IP block and token checks", async () => {
    const reader = await server.createUser('reader');
    const store = server.social.context.store;
    const version = store.core.sql('PRAGMA data_version');
    const get = version.get;
    let reads = 0;
    version.get = (...args: unknown[]) => {
      reads++;
      return get.apply(version, args);
    };
    const seen: Record<string, number> = {};
    const ipBlockStamp = store.ipBlockStamp;
    const credentialStamp = store.credentialStamp;
    store.ipBlockStamp = () => {
      const stamp = ipBlockStamp.call(store);
      seen.ip = reads;
      return stamp;
    };
    store.credentialStamp = () => {
      const stamp = credentialStamp.call(store);
      seen.token ??= reads;
      return stamp;
    };
    try {
      expect((await me(reader.token)).status).toBe(200);
      // The token's stamp came from the IP block check's reading: no statement of its own.
      expect(seen.ip).toBeGreaterThan(0);
      expect(seen.token).toBe(seen.ip);
    } finally {
      version.get = get;
      store.ipBlockStamp = ipBlockStamp;
      store.credentialStamp = credentialStamp;
    }
  });
});

import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../testing/openapi.ts';
import { startSocialTestServer, type SocialTestServer } from '../testing/harness.ts';

/*
 * How much of the Mastodon OpenAPI document the social server answers: every documented operation is
 * either routed or listed below as not yet built. An operation that disappears fails the test, and so
 * does one that gets built while still listed (the list must shrink with the work).
 */

/** Documented operations Homeport does not answer yet, as `METHOD /path` with the document's templates. */
const NOT_YET = new Set<string>([]);

/** Documented operations Mastodon itself has removed (with the version): answered 404 like any unrouted path, as Mastodon does. */
const REMOVED_IN_MASTODON = new Map<string, string>([['GET /api/v1/timelines/direct', '3.0.0']]);

let server: SocialTestServer;
beforeAll(async () => {
  server = await startSocialTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** `/api/v1/accounts/{id}` and fastify's `/api/v1/accounts/:id` both become `/api/v1/accounts/*`. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '*').replace(/:[A-Za-z_]+/g, '*');

describe('Mastodon API coverage', () => {
  it('answers every documented operation except the listed ones', () => {
    const doc = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const methods = ['get', 'post', 'put', 'patch', 'delete'];
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      methods.filter((m) => m in ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const routed = new Set(server.social.context.routes.map((r) => `${r.method} ${shape(r.url)}`));
    const answered = documented.filter((op) => {
      const [method, path] = op.split(' ');
      return routed.has(`${method} ${shape(path)}`) || REMOVED_IN_MASTODON.has(op);
    });
    const missing = documented.filter((op) => !answered.includes(op));
    const share = (100 * answered.length) / documented.length;
    console.log(
      `Mastodon OpenAPI coverage: ${answered.length} of ${documented.length} operations (${share.toFixed(1)}%)${missing.length ? `; not yet:\n  ${missing.join('\n  ')}` : ''}`,
    );
    expect(
      missing.filter((op) => !NOT_YET.has(op)),
      'operations that are neither answered nor listed as not yet built',
    ).toEqual([]);
    expect(
      [...NOT_YET].filter((op) => answered.includes(op)),
      'listed as not yet built but answered: take them off the list',
    ).toEqual([]);
  });

  it('answers the operations Mastodon removed with a 404 a browser client can read', async () => {
    for (const op of REMOVED_IN_MASTODON.keys()) {
      const [method, path] = op.split(' ');
      const res = await fetch(`${server.url}${path.replace(/\{[^}]+\}/g, '1')}`, { method });
      expect(res.status, op).toBe(404);
      expect(res.headers.get('access-control-allow-origin'), op).toBe('*');
      expect(
        server.social.context.routes.some((r) => `${r.method} ${shape(r.url)}` === `${method} ${shape(path)}`),
        op,
      ).toBe(false);
    }
  });
});

describe('update routes', () => {
  /** Mastodon routes PATCH alone here (`patch :update_credentials`); every other update is a Rails `update`. */
  const PATCH_ONLY = new Set(['/api/v1/accounts/update_credentials']);

  it('answer both PUT and PATCH, as Mastodon routes a resource update', () => {
    const routes = server.social.context.routes;
    const has = (method: string, url: string) => routes.some((r) => r.method === method && r.url === url);
    const updates = routes.filter((r) => r.method === 'PUT' || r.method === 'PATCH').map((r) => r.url);
    expect(updates.length).toBeGreaterThan(15);
    const lacking = [...new Set(updates)].filter(
      (url) => !PATCH_ONLY.has(url) && !(has('PUT', url) && has('PATCH', url)),
    );
    expect(lacking, 'update routes answering only one of PUT and PATCH').toEqual([]);
    expect(has('PUT', '/api/v1/accounts/update_credentials')).toBe(false);
  });

  it('changes the notification policy and a collection through PUT, and a list through PATCH', async () => {
    const user = await server.createUser('updater', { scopes: 'read write' });
    const policy = await server.call(user.token, 'PUT', '/api/v2/notifications/policy', { for_not_following: 'drop' });
    expect(policy.status).toBe(200);
    expect(policy.body.for_not_following).toBe('drop');
    expect((await server.call(user.token, 'GET', '/api/v2/notifications/policy')).body.for_not_following).toBe('drop');

    const created = await server.call(user.token, 'POST', '/api/v1/collections', { name: 'Before' });
    expect(created.status).toBe(200);
    const renamed = await server.call(user.token, 'PUT', `/api/v1/collections/${created.body.collection.id}`, {
      name: 'After',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.collection.name).toBe('After');

    const list = await server.masto(user.token).v1.lists.create({ title: 'first' });
    const patched = await server.call(user.token, 'PATCH', `/api/v1/lists/${list.id}`, { title: 'second' });
    expect(patched.status).toBe(200);
    expect((await server.masto(user.token).v1.lists.$select(list.id).fetch()).title).toBe('second');
  });
});

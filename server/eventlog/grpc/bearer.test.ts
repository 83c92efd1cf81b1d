import fs from 'node:fs';
import https from 'node:https';
import { AccessDeniedError, jsonEvent, START, type KurrentDBClient } from '@kurrent/kurrentdb-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOKENS_PER_USER } from '../store/index.ts';
import { useGrpcTestServer, waitFor } from './testing/homeport.ts';
import { record } from './testing/subscriptions.ts';

/** Bearer tokens Homeport issues to its event-log users, through the official client's `{ bearerToken }`. */
// System projections on: their HTTP API on the same port takes the tokens too.
const shared = useGrpcTestServer({ runProjections: 'system' });

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
const event = (n = 0) => jsonEvent({ type: 't', data: { n } });
const as = (bearerToken: string) => ({ credentials: { bearerToken } });

describe('bearer tokens over TLS', () => {
  let anonymous: KurrentDBClient;
  let token: string;
  const tokens = () => shared.server.homeport.eventLog.tokens;
  const users = () => shared.server.homeport.eventLog.users;

  beforeAll(async () => {
    anonymous = shared.server.client(null);
    await users().add({ name: 'carol', password: 'carol-password', groups: ['readers'] });
    ({ token } = await tokens().create('carol', { name: 'tests' }));
  });

  it("appends, reads and subscribes as the token's user", async () => {
    await anonymous.appendToStream('bearer-own', [event(1), event(2)], as(token));
    expect((await all(anonymous.readStream('bearer-own', as(token)))).map((e) => e.event?.data)).toEqual([
      { n: 1 },
      { n: 2 },
    ]);
    const live = record(anonymous.subscribeToStream('bearer-own', { fromRevision: START, ...as(token) }));
    await live.until(() => live.events.length === 2);
    await shared.client.appendToStream('bearer-own', event(3));
    await live.until(() => live.events.length === 3);
  });

  it("applies the stream ACLs of the token's user (groups included)", async () => {
    await shared.client.appendToStream('bearer-acl', event());
    await shared.client.setStreamMetadata('bearer-acl', { acl: { readRoles: ['readers'], writeRoles: ['$admins'] } });
    expect(await all(anonymous.readStream('bearer-acl', as(token)))).toHaveLength(1);
    await expect(anonymous.appendToStream('bearer-acl', event(), as(token))).rejects.toBeInstanceOf(AccessDeniedError);
    // $all is for admins: carol's token is not one
    await expect(all(anonymous.readAll({ maxCount: 1, ...as(token) }))).rejects.toBeInstanceOf(AccessDeniedError);
    // without the token, the anonymous user may not read what "readers" may
    await expect(all(anonymous.readStream('bearer-acl'))).rejects.toBeInstanceOf(AccessDeniedError);
  });

  it('refuses unknown, revoked and expired tokens with AccessDeniedError', async () => {
    await expect(anonymous.appendToStream('bearer-x', event(), as('hpel_not-a-token'))).rejects.toBeInstanceOf(
      AccessDeniedError,
    );
    await expect(anonymous.appendToStream('bearer-x', event(), as('garbage'))).rejects.toBeInstanceOf(
      AccessDeniedError,
    );

    const revoked = await tokens().create('carol');
    await anonymous.appendToStream('bearer-x', event(), as(revoked.token));
    await tokens().revoke(revoked.info.id);
    await expect(anonymous.appendToStream('bearer-x', event(), as(revoked.token))).rejects.toBeInstanceOf(
      AccessDeniedError,
    );

    const expiring = await tokens().create('carol', { expiresInMs: 1 });
    await waitFor(() => Date.now() > expiring.info.expiresAt!, 'the token to expire');
    await expect(all(anonymous.readStream('bearer-x', as(expiring.token)))).rejects.toBeInstanceOf(AccessDeniedError);
    // the others still work
    await anonymous.appendToStream('bearer-x', event(), as(token));
  });

  it("stops a disabled or removed user's tokens at once; a password change keeps them", async () => {
    await users().add({ name: 'dave', password: 'dave-password' });
    const dave = await tokens().create('dave');
    await anonymous.appendToStream('bearer-dave', event(), as(dave.token));
    await users().changePassword('dave', 'another-password');
    await anonymous.appendToStream('bearer-dave', event(), as(dave.token));

    await users().setDisabled('dave', true);
    await expect(anonymous.appendToStream('bearer-dave', event(), as(dave.token))).rejects.toBeInstanceOf(
      AccessDeniedError,
    );
    await users().setDisabled('dave', false);
    await anonymous.appendToStream('bearer-dave', event(), as(dave.token));

    // removed, then created again under the same name: the old account's token does not come back
    await users().remove('dave');
    await expect(anonymous.appendToStream('bearer-dave', event(), as(dave.token))).rejects.toBeInstanceOf(
      AccessDeniedError,
    );
    await users().add({ name: 'dave', password: 'dave-password' });
    await expect(anonymous.appendToStream('bearer-dave', event(), as(dave.token))).rejects.toBeInstanceOf(
      AccessDeniedError,
    );
    expect(tokens().list('dave')).toEqual([]);
  });

  it('opens the HTTP projections API on the same port to a token, and refuses an unknown one', async () => {
    const ca = fs.readFileSync(shared.server.homeport.grpc!.caFile!);
    const get = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        https
          .get(
            { host: '127.0.0.1', port: shared.server.port, path: '/projections/any', ca, headers: { authorization } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          )
          .on('error', reject);
      });
    expect(await get(`Bearer ${token}`)).toBe(200);
    expect(await get('Bearer hpel_unknown')).toBe(401);
  });

  it(`keeps at most ${MAX_TOKENS_PER_USER} tokens per user and stores only their digests`, async () => {
    await users().add({ name: 'erin', password: 'erin-password' });
    const issued = [];
    for (let i = 0; i < MAX_TOKENS_PER_USER; i++) issued.push(await tokens().create('erin', { name: `t${i}` }));
    await expect(tokens().create('erin')).rejects.toThrow(/revoke one first/);
    await tokens().revoke(issued[0].info.id);
    await tokens().create('erin');
    expect(tokens().list('erin')).toHaveLength(MAX_TOKENS_PER_USER);
    const rows = shared.server.homeport.eventLog.db.prepare('SELECT * FROM access_tokens').all();
    expect(JSON.stringify(rows)).not.toContain(issued[1].token);
    expect(JSON.stringify(rows)).not.toContain(issued[1].token.slice(5));
  });
});

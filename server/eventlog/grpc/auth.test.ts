import { AccessDeniedError, jsonEvent, START, type KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { ADMIN, startGrpcTestServer, useGrpcTestServer } from './testing/homeport.ts';
import { record } from './testing/subscriptions.ts';

const shared = useGrpcTestServer();

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
const event = () => jsonEvent({ type: 't', data: {} });

describe('authentication over TLS (Basic)', () => {
  it('refuses a wrong password on appends (grpc-js side) and reads (Rust side) with AccessDeniedError', async () => {
    const bad = shared.server.client({ username: 'admin', password: 'wrong' });
    await expect(bad.appendToStream('auth-wrong', event())).rejects.toBeInstanceOf(AccessDeniedError);
    await shared.client.appendToStream('auth-wrong', event());
    await expect(all(bad.readStream('auth-wrong'))).rejects.toBeInstanceOf(AccessDeniedError);
  });

  it('treats a call without credentials as the anonymous user, with the same ACLs as TCP', async () => {
    const anonymous: KurrentDBClient = shared.server.client(null);
    await anonymous.appendToStream('anon-open', event());
    expect(await all(anonymous.readStream('anon-open'))).toHaveLength(1);
    // $all and system streams are for admins by default
    await expect(all(anonymous.readAll({ maxCount: 1 }))).rejects.toBeInstanceOf(AccessDeniedError);
    const sub = record(anonymous.subscribeToAll({ fromPosition: START }));
    await expect(sub.until(() => false)).rejects.toBeInstanceOf(AccessDeniedError);
  });

  it('applies stream ACLs set in metadata to named users', async () => {
    await shared.client.appendToStream('acl-admins-only', event());
    await shared.client.setStreamMetadata('acl-admins-only', {
      acl: { readRoles: ['$admins'], writeRoles: ['$admins'], deleteRoles: ['$admins'] },
    });
    const ops = shared.server.client({ username: 'ops', password: 'changeit' });
    await expect(all(ops.readStream('acl-admins-only'))).rejects.toBeInstanceOf(AccessDeniedError);
    await expect(ops.appendToStream('acl-admins-only', event())).rejects.toBeInstanceOf(AccessDeniedError);
    await expect(ops.deleteStream('acl-admins-only')).rejects.toBeInstanceOf(AccessDeniedError);
    const live = record(ops.subscribeToStream('acl-admins-only'));
    await expect(live.until(() => false)).rejects.toBeInstanceOf(AccessDeniedError);
    expect(await all(shared.client.readStream('acl-admins-only'))).toHaveLength(1);
  });
});

describe('--grpc-insecure', () => {
  it('serves cleartext with authorization off, as KurrentDB --insecure', async () => {
    const server = await startGrpcTestServer({ insecure: true });
    try {
      expect(server.homeport.grpc!.connectionString).toBe(`kurrentdb://127.0.0.1:${server.port}?tls=false`);
      const client = server.client(ADMIN);
      await client.appendToStream('$system-ish', event());
      expect((await all(client.readAll({ maxCount: 5 }))).length).toBeGreaterThan(0);
      // the same cleartext port answers plain HTTP/1.1 (told apart from HTTP/2 by the connection preface)
      expect((await fetch(`http://127.0.0.1:${server.port}/health/live`)).status).toBe(204);
      expect((await fetch(`http://127.0.0.1:${server.port}/nowhere`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

import https from 'node:https';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonEvent, KurrentDBClient } from '@kurrent/kurrentdb-client';
import { rawClient, unaryCall } from './testing/raw.ts';
import { startGrpcTestServer, type GrpcTestServer } from './testing/homeport.ts';
import fs from 'node:fs';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('the gRPC listener', () => {
  it('lists itself with a working connection string', () => {
    const l = server.homeport.listeners.find((x) => x.name === 'eventlog-grpc');
    expect(l?.host).toBe('127.0.0.1');
    expect(l?.url).toBe(`kurrentdb://127.0.0.1:${server.port}?tlsCAFile=${server.homeport.grpc!.caFile}`);
    expect(fs.existsSync(server.homeport.grpc!.caFile!)).toBe(true);
  });

  it('advertises exactly the implemented methods and a semver version', async () => {
    const client = rawClient(server, 'event_store.client.server_features.ServerFeatures');
    const res = await unaryCall<{
      event_store_server_version: string;
      methods: { service_name: string; method_name: string; features: string[] }[];
    }>(client, 'GetSupportedMethods', {});
    client.close();
    expect(res.event_store_server_version).toMatch(/^\d+\.\d+\.\d+$/);
    const names = res.methods.map((m) => `${m.service_name}/${m.method_name}`);
    expect(names).toContain('event_store.client.streams.streams/read');
    expect(names).toContain('event_store.client.streams.streams/append');
    expect(res.methods.find((m) => m.method_name === 'batchappend')?.features).toEqual(['deadline_duration']);
    expect(names).not.toContain('event_store.client.projections.projections/create');
    const readMethod = res.methods.find((m) => m.method_name === 'read' && m.service_name.endsWith('streams'));
    expect(readMethod?.features).toEqual(['position', 'events']);
  });

  it('answers Gossip with one live leader at this address', async () => {
    const client = rawClient(server, 'event_store.client.gossip.Gossip');
    const res = await unaryCall<{
      members: { state: string; is_alive: boolean; http_end_point: { address: string; port: number } }[];
    }>(client, 'Read', {});
    client.close();
    expect(res.members).toHaveLength(1);
    expect(res.members[0]).toMatchObject({
      state: 'LEADER',
      is_alive: true,
      http_end_point: { address: '127.0.0.1', port: server.port },
    });
  });

  it('answers a method it does not implement with UNIMPLEMENTED', async () => {
    const client = rawClient(server, 'event_store.client.projections.Projections');
    await expect(unaryCall(client, 'Disable', { options: { name: 'x' } })).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
    });
    client.close();
  });

  it('serves /health/live, /info and /gossip over HTTP/1.1 on the same TLS port', async () => {
    const ca = fs.readFileSync(server.homeport.grpc!.caFile!);
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port: server.port, path, ca }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
    expect((await get('/health/live')).status).toBe(204);
    const info = await get('/info');
    expect(JSON.parse(info.body).esVersion).toMatch(/^\d+\.\d+\.\d+$/);
    const gossip = JSON.parse((await get('/gossip')).body);
    expect(gossip.members[0]).toMatchObject({ state: 'Leader', isAlive: true, httpEndPointPort: server.port });
  });

  it('lets the official client append and read back over TLS with credentials', async () => {
    const client = server.client();
    const event = jsonEvent({ type: 'greeted', data: { hello: 'world' } });
    const appended = await client.appendToStream('greetings-1', event);
    const read = [];
    for await (const resolved of client.readStream('greetings-1')) read.push(resolved);
    expect(read).toHaveLength(1);
    expect(read[0].event?.id).toBe(event.id);
    expect(read[0].event?.type).toBe('greeted');
    expect(read[0].event?.data).toEqual({ hello: 'world' });
    expect(read[0].event?.position?.commit).toBe(appended.position?.commit);
  });

  it('works with +discover (gossip) and esdb:// connection strings', async () => {
    for (const scheme of ['kurrentdb+discover://', 'esdb://', 'esdb+discover://']) {
      const url = server.connectionString().replace('kurrentdb://', scheme);
      const client = KurrentDBClient.connectionString(url);
      try {
        const stream = `scheme-${scheme.replace(/\W/g, '')}`;
        await client.appendToStream(stream, jsonEvent({ type: 't', data: {} }));
        const read = [];
        for await (const e of client.readStream(stream)) read.push(e);
        expect(read).toHaveLength(1);
      } finally {
        await client.dispose();
      }
    }
  });

  it("lists gRPC connections in the UI's connection list, with the ids the subscription monitor shows", async () => {
    const client = server.client();
    const sub = client.subscribeToStream('monitored');
    await new Promise<void>((resolve) => sub.once('caughtUp', () => resolve()));
    const headers = { authorization: `Bearer ${server.homeport.uiToken}` };
    const api = `${server.homeport.httpUrl}/api/homeport/v1/eventlog`;
    const { connections } = (await (await fetch(`${api}/connections`, { headers })).json()) as {
      connections: { id: string; tls: boolean }[];
    };
    const { subscriptions } = (await (await fetch(`${api}/subscriptions`, { headers })).json()) as {
      subscriptions: { stream: string; connectionId: string }[];
    };
    const monitored = subscriptions.find((s) => s.stream === 'monitored');
    expect(monitored?.connectionId).toMatch(/^grpc:/);
    expect(connections.find((c) => c.id === monitored?.connectionId)).toMatchObject({ tls: true });
    await sub.unsubscribe();
  });
});

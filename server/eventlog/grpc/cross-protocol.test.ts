import crypto from 'node:crypto';
import { jsonEvent, START } from '@kurrent/kurrentdb-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type EventStoreClientModule } from '../tcp/testing/client-connection.ts';
import { useGrpcTestServer } from './testing/homeport.ts';
import { record } from './testing/subscriptions.ts';

/**
 * One Homeport, both protocols at once: node-eventstore-client over TCP and @kurrent/kurrentdb-client over
 * gRPC see the same events with the same ids, revisions, order and `$all` positions, live and read back.
 */
const shared = useGrpcTestServer();
let es: EventStoreClientModule;
let tcp: Awaited<ReturnType<typeof connectClient>>;
let admin: unknown;
beforeAll(async () => {
  es = (await import('node-eventstore-client')).default;
  tcp = await connectClient(es, `tcp://127.0.0.1:${shared.server.homeport.tcpPort}`);
  admin = new es.UserCredentials('admin', 'changeit');
});
afterAll(() => tcp?.close());

type TcpResolved = {
  event: { eventId: string; eventNumber: { toString(): string }; eventStreamId: string; data: Buffer };
  originalPosition?: { commitPosition: { toString(): string }; preparePosition: { toString(): string } };
};
const tcpEvent = (type: string, n: number) => es.createJsonEventData(crypto.randomUUID(), { n }, null, type);
const idOf = (e: { eventId: string }) => e.eventId;

describe('TCP and gRPC on one store', () => {
  it('reads over gRPC what TCP wrote, and TCP reads what gRPC wrote, same ids, revisions and positions', async () => {
    const fromTcp = [tcpEvent('T', 0), tcpEvent('T', 1), tcpEvent('T', 2)];
    await tcp.appendToStream('cross-a', es.expectedVersion.noStream, fromTcp, admin);
    const fromGrpc = [jsonEvent({ type: 'G', data: { n: 3 } }), jsonEvent({ type: 'G', data: { n: 4 } })];
    await shared.client.appendToStream('cross-a', fromGrpc, { streamState: 2n });

    const overGrpc = [];
    for await (const e of shared.client.readStream('cross-a')) overGrpc.push(e);
    const overTcp = (await tcp.readStreamEventsForward('cross-a', 0, 10, false, admin)).events as TcpResolved[];
    const expectedIds = [...fromTcp.map(idOf), ...fromGrpc.map((e) => e.id)];
    expect(overGrpc.map((e) => e.event!.id)).toEqual(expectedIds);
    expect(overTcp.map((e) => e.event.eventId)).toEqual(expectedIds);
    expect(overGrpc.map((e) => String(e.event!.revision))).toEqual(overTcp.map((e) => e.event.eventNumber.toString()));

    // $all: same order and the same (commit, prepare) for every event of the log
    const allGrpc = [];
    for await (const e of shared.client.readAll({ fromPosition: START })) allGrpc.push(e);
    const allTcp = (await tcp.readAllEventsForward(es.positions.start, 4096, false, admin)).events as TcpResolved[];
    expect(allGrpc.map((e) => `${e.event!.id}@${e.event!.position.commit}/${e.event!.position.prepare}`)).toEqual(
      allTcp.map(
        (e) => `${e.event.eventId}@${e.originalPosition!.commitPosition}/${e.originalPosition!.preparePosition}`,
      ),
    );
  });

  it('delivers TCP writes to a gRPC subscription and gRPC writes to a TCP subscription', async () => {
    const grpcSub = record(shared.client.subscribeToStream('cross-live', { fromRevision: START }));
    await grpcSub.until(() => grpcSub.caughtUp === 1);
    const seenOverTcp: string[] = [];
    let wake = () => {};
    const tcpSub = await tcp.subscribeToStream(
      'cross-live',
      false,
      (_s: unknown, e: TcpResolved) => {
        seenOverTcp.push(e.event.eventId);
        wake();
      },
      undefined,
      admin,
    );
    const written = [tcpEvent('T', 0)];
    await tcp.appendToStream('cross-live', es.expectedVersion.any, written, admin);
    const viaGrpc = jsonEvent({ type: 'G', data: { n: 1 } });
    await shared.client.appendToStream('cross-live', viaGrpc);
    await grpcSub.until(() => grpcSub.events.length === 2);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('TCP subscription saw too little')), 15_000);
      wake = () => {
        if (seenOverTcp.length >= 2) {
          clearTimeout(timer);
          resolve();
        }
      };
      wake();
    });
    const ids = [written[0].eventId, viaGrpc.id];
    expect(grpcSub.events.map((e) => e.event!.id)).toEqual(ids);
    expect(seenOverTcp).toEqual(ids);
    tcpSub.unsubscribe();
  });

  it('links written over TCP resolve over gRPC', async () => {
    await tcp.appendToStream('cross-target', es.expectedVersion.any, [tcpEvent('T', 0)], admin);
    const link = es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from('0@cross-target'));
    await tcp.appendToStream('cross-links', es.expectedVersion.any, [link], admin);
    const read = [];
    for await (const e of shared.client.readStream('cross-links', { resolveLinkTos: true })) read.push(e);
    expect(read[0].event!.streamId).toBe('cross-target');
    expect(read[0].link!.id).toBe(link.eventId);
  });

  it('shares persistent groups: created over TCP, consumed and acknowledged over gRPC, seen over both', async () => {
    const written = [tcpEvent('T', 0), tcpEvent('T', 1)];
    await tcp.appendToStream('cross-group', es.expectedVersion.any, written, admin);
    const settings = es.PersistentSubscriptionSettings.create();
    settings.startFrom = 0;
    await tcp.createPersistentSubscription('cross-group', 'both', settings, admin);
    const sub = shared.client.subscribeToPersistentSubscriptionToStream('cross-group', 'both');
    const rec = record(sub);
    await rec.until(() => rec.events.length === 2);
    expect(rec.events.map((e) => e.event!.id)).toEqual(written.map(idOf));
    await sub.ack(...rec.events);
    const info = await shared.client.getPersistentSubscriptionToStreamInfo('cross-group', 'both');
    expect(info.groupName).toBe('both');
    expect(info.connections).toHaveLength(1);
    await sub.unsubscribe();
    await tcp.deletePersistentSubscription('cross-group', 'both', admin);
    await expect(shared.client.getPersistentSubscriptionToStreamInfo('cross-group', 'both')).rejects.toThrow();
  });
});

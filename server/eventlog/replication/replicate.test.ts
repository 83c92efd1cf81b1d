import type es from 'node-eventstore-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, LogRing } from '../../logger.ts';
import {
  NO_FILTER,
  openEndpoint,
  parseEndpoint,
  replicate,
  type ReplicationFilter,
  type ReplicationSummary,
} from './index.ts';
import { copiesOf, expectReplicated, seedMixedContent, snapshotOf, type StoreSnapshot } from './testing/content.ts';
import { removeTempDirs, serveHomeport, tcpClient, tempDir, type ServedHomeport } from './testing/serve.ts';

const logger = createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) });

async function run(
  from: string,
  to: string,
  more: { intoExisting?: boolean; filter?: ReplicationFilter } = {},
): Promise<ReplicationSummary> {
  const source = await openEndpoint(parseEndpoint(from), logger, 'source');
  const target = await openEndpoint(parseEndpoint(to), logger, 'target');
  try {
    return await replicate({
      openSource: () => source.openSource(),
      openTarget: () => target.openTarget(),
      name: 'test',
      intoExisting: more.intoExisting,
      filter: more.filter,
    });
  } finally {
    await source.close();
    await target.close();
  }
}

describe('homeport → homeport, every kind of content', () => {
  const servers: ServedHomeport[] = [];
  let source: ServedHomeport;
  let expected: StoreSnapshot;

  beforeAll(async () => {
    source = await serveHomeport(tempDir('src'));
    servers.push(source);
    const c: es.EventStoreNodeConnection = await tcpClient(source.tcpPort);
    await seedMixedContent(c);
    c.close();
    expected = await snapshotOf(source);
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.kill();
    removeTempDirs();
  });

  it('the snapshot covers metadata, deletions and skips links and $ events', () => {
    const types = new Set(expected.events.map((e) => e.eventType));
    expect(types).toEqual(new Set(['OrderLine', 'Blob', 'Tick', 'Secret', 'Step', 'Gone', 'V1', 'V2', 'OrderShipped']));
    expect(expected.tombstoned).toEqual(['hard-a']);
    expect(expected.metadataIds.length).toBe(6);
    expect(expected.streams['hard-a'].status).toBe('streamDeleted');
    expect(expected.streams['soft-a'].status).toBe('streamNotFound');
    expect(expected.streams['capped-a'].eventIds).toHaveLength(3);
    expect(expected.streams['trunc-a'].eventIds).toHaveLength(2);
  });

  for (const protocol of ['tcp', 'grpc'] as const) {
    it(`copies everything over ${protocol}, and a second run copies nothing`, async () => {
      const target = await serveHomeport(tempDir(`dst-${protocol}`));
      servers.push(target);
      const from = protocol === 'tcp' ? source.tcpUrl : source.grpcUrl;
      const to = protocol === 'tcp' ? target.tcpUrl : target.grpcUrl;
      const first = await run(from, to);
      expect(first.copied).toBe(copiesOf(expected));
      expectReplicated(await snapshotOf(target), expected);
      // Again through a cluster's form of the address (seeds listed, gossip first): the same server twice.
      const seeds = (url: string) =>
        url.replace('kurrentdb://', 'kurrentdb+discover://').replace(/@([^/?]+)/, (_, host) => `@${host},${host}`);
      const second = await run(protocol === 'grpc' ? seeds(from) : from, to);
      expect(second.copied).toBe(0);
      expectReplicated(await snapshotOf(target), expected);
    }, 120_000);
  }

  it('copies into a data directory over tcp, and from that directory to a server over grpc', async () => {
    const local = tempDir('local');
    await run(source.tcpUrl, local);
    const target = await serveHomeport(tempDir('dst-from-local'));
    servers.push(target);
    await run(local, target.grpcUrl);
    expectReplicated(await snapshotOf(target), expected);
    const served = await serveHomeport(local);
    servers.push(served);
    expectReplicated(await snapshotOf(served), expected);
  }, 120_000);

  it('refuses a target that holds events of its own unless told to copy into it', async () => {
    const target = await serveHomeport(tempDir('dst-busy'));
    servers.push(target);
    const c = await tcpClient(target.tcpPort);
    await seedMixedContent(c, 'own');
    c.close();
    await expect(run(source.tcpUrl, target.tcpUrl)).rejects.toThrow(/already holds events; pass --into-existing/);
    const summary = await run(source.tcpUrl, target.tcpUrl, { intoExisting: true });
    expect(summary.copied).toBe(copiesOf(expected));
  }, 120_000);

  it('copies only what the filters let through: stream prefixes with their metadata, event types by regex', async () => {
    const target = await serveHomeport(tempDir('dst-filtered'));
    servers.push(target);
    await run(source.grpcUrl, target.tcpUrl, {
      filter: { ...NO_FILTER, streamPrefixes: ['capped-', 'order-', 'hard-'], eventTypeRegex: /^(Order|Tick)/ },
    });
    const copied = await snapshotOf(target);
    const wanted = (e: { streamId: string; eventType: string }) =>
      /^(capped|order)-/.test(e.streamId) && /^(Order|Tick)/.test(e.eventType);
    expect(copied.events).toEqual(expected.events.filter(wanted));
    expect(copied.events.map((e) => e.eventType)).toContain('OrderShipped');
    expect(copied.tombstoned).toEqual(['hard-a']);
    expect(Object.keys(copied.streams).sort()).toEqual(['capped-a', 'hard-a', 'order-a']);
    expect(copied.streams['capped-a']).toEqual(expected.streams['capped-a']);
  }, 120_000);
});

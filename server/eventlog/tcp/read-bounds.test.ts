import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSubscribedTcpFixture } from '../testing/subscribed-fixture.ts';
import { startServeProcess, type ServeProcess } from '../../testing/serve-process.ts';
import { waitFor } from '../testing/wait-for.ts';
import { connectClient, type EventStoreClientModule } from './testing/client-connection.ts';
import type { TcpFixture } from './testing/raw-client.ts';

/**
 * Reads that resolve links are bounded in bytes while they are built (issue 25, finding 1): an anonymous
 * client wrote one big event and thousands of links to it, then read the links with resolveLinkTos, and
 * the server materialized a copy of the target per link before trimming the reply.
 */

const MB = 1024 * 1024;
/** The client's objects, untyped here as in client-connection.ts. */
type Resolved = any;

async function loadClient(): Promise<EventStoreClientModule> {
  return (await import('node-eventstore-client')).default;
}

function binaryEvent(es: EventStoreClientModule, type: string, data: Buffer) {
  return es.createEventData(crypto.randomUUID(), type, false, data);
}

/** Appends one event of `bytes` random bytes to `target` and `links` links to it to `linkStream`. */
async function writeLinks(
  es: EventStoreClientModule,
  conn: Resolved,
  target: string,
  linkStream: string,
  bytes: number,
  links: number,
) {
  await conn.appendToStream(target, es.expectedVersion.any, [binaryEvent(es, 'Big', crypto.randomBytes(bytes))]);
  for (let i = 0; i < links; i += 500) {
    const batch = Array.from({ length: Math.min(500, links - i) }, () =>
      binaryEvent(es, '$>', Buffer.from(`0@${target}`)),
    );
    await conn.appendToStream(linkStream, es.expectedVersion.any, batch);
  }
}

describe('one anonymous read of many links to a big event (a separate server process)', () => {
  let server: ServeProcess | null = null;
  let dataDir: string | null = null;
  afterEach(async () => {
    if (server) {
      await server.stop('SIGKILL');
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    server = null;
    dataDir = null;
  });

  it('answers one bounded page that pages on, without materializing a copy per link', async () => {
    const es = await loadClient();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-read-bounds-'));
    server = await startServeProcess({ dataDir });
    // A patient client: the old server stalled for seconds on this read (its memory is what the test measures).
    const patient = { maxReconnections: 0, heartbeatTimeout: 120_000, operationTimeout: 120_000 };
    const conn = await connectClient(es, `tcp://127.0.0.1:${server.tcpPort}`, patient, 'attacker');
    try {
      const LINKS = 512;
      const TARGET = 2 * MB;
      await writeLinks(es, conn, 'big', 'links', TARGET, LINKS);
      const before = server.memory()!;

      const first = await conn.readStreamEventsForward('links', 0, 4096, true);
      const after = server.memory()!;
      // Every copy of the target (512 × 2 MB = 1 GiB) used to be built before the reply was cut to one frame.
      const growth = after.peak - before.peak;
      console.log(
        `server RSS peak ${Math.round(before.peak / MB)} -> ${Math.round(after.peak / MB)} MiB for one read of ${LINKS} links`,
      );
      expect(growth).toBeLessThan(256 * MB);

      const count = first.events.length;
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThan(LINKS);
      expect(first.isEndOfStream).toBe(false);
      expect(first.nextEventNumber.toNumber()).toBe(count);
      first.events.forEach((e: Resolved, i: number) => {
        expect(e.link.eventNumber.toNumber()).toBe(i);
        expect(e.event.eventStreamId).toBe('big');
        expect(e.event.data.length).toBe(TARGET);
      });
      const second = await conn.readStreamEventsForward('links', first.nextEventNumber, 4096, true);
      expect(second.events[0].link.eventNumber.toNumber()).toBe(count);
    } finally {
      conn.close();
    }
  });
});

describe('paging reads that resolve links, through node-eventstore-client', () => {
  let fx: TcpFixture | null = null;
  afterEach(async () => {
    await fx?.close();
    fx = null;
  });

  /** A server whose replies hold at most 4 MB and whose own reads at most 3 MB, with 40 links to a 1 MB event. */
  async function setUp() {
    fx = await startSubscribedTcpFixture({
      tcp: { limits: { maxReplyBytes: 4 * MB } },
      eventLog: { limits: { maxReadBytes: 3 * MB } },
    });
    const es = await loadClient();
    const conn = await connectClient(es, `tcp://127.0.0.1:${fx.port}`, { maxReconnections: 0 }, 'reader');
    await writeLinks(es, conn, 'target', 'links', MB, 40);
    return { es, conn, admin: new es.UserCredentials('admin', 'changeit') };
  }

  it('reads stream and $all pages in turn, each within the reply bound, every link resolved once', async () => {
    const { es, conn, admin } = await setUp();
    try {
      for (const forward of [true, false]) {
        const seen: number[] = [];
        let from = forward ? 0 : -1;
        for (let pages = 0; ; pages++) {
          expect(pages).toBeLessThan(40);
          const slice = forward
            ? await conn.readStreamEventsForward('links', from, 4096, true)
            : await conn.readStreamEventsBackward('links', from, 4096, true);
          expect(slice.events.length).toBeLessThanOrEqual(3);
          for (const e of slice.events) {
            expect(e.event.data.length).toBe(MB);
            seen.push(e.link.eventNumber.toNumber());
          }
          if (slice.isEndOfStream) break;
          from = slice.nextEventNumber;
        }
        const all = Array.from({ length: 40 }, (_, i) => i);
        expect(seen).toEqual(forward ? all : all.reverse());
      }

      const inAll: number[] = [];
      let position = es.positions.start;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(40);
        const slice = await conn.readAllEventsForward(position, 4096, true, admin);
        const links = slice.events.filter((e: Resolved) => e.link?.eventStreamId === 'links');
        expect(links.length).toBeLessThanOrEqual(3);
        for (const e of links) inAll.push(e.link.eventNumber.toNumber());
        if (slice.isEndOfStream) break;
        position = slice.nextPosition;
      }
      expect(inAll).toEqual(Array.from({ length: 40 }, (_, i) => i));
    } finally {
      conn.close();
    }
  });

  it('catches up and feeds persistent consumers through bounded pages, every link resolved', async () => {
    const { es, conn, admin } = await setUp();
    try {
      const caughtUp: Resolved[] = [];
      let live = false;
      const catchUp = conn.subscribeToStreamFrom(
        'links',
        null,
        true,
        (_s: unknown, e: Resolved) => {
          caughtUp.push(e);
        },
        () => {
          live = true;
        },
        undefined,
        undefined,
        500,
      );
      await waitFor(() => live && caughtUp.length >= 40, 'the catch-up subscription to reach live');
      expect(caughtUp.map((e) => e.link.eventNumber.toNumber())).toEqual(Array.from({ length: 40 }, (_, i) => i));
      for (const e of caughtUp) expect(e.event.data.length).toBe(MB);
      catchUp.stop();

      const settings = es.PersistentSubscriptionSettings.create();
      settings.startFrom = 0;
      settings.resolveLinkTos = true;
      await conn.createPersistentSubscription('links', 'bounded', settings, admin);
      const delivered: Resolved[] = [];
      const consumer = await conn.connectToPersistentSubscription('links', 'bounded', (_s: unknown, e: Resolved) => {
        delivered.push(e);
      });
      await waitFor(() => delivered.length >= 40, 'every link to reach the persistent consumer');
      expect(delivered.map((e) => e.link.eventNumber.toNumber()).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, i) => i),
      );
      for (const e of delivered) expect(e.event.data.length).toBe(MB);
      consumer.stop();
    } finally {
      conn.close();
    }
  });
});

/**
 * One scenario suite run against every supported client library (emmett-style): the same
 * operations through node-eventstore-client 23.10.1 and 0.2.19 against a real Homeport.
 * Connecting and building events live in client-connection.ts (other tests use them too).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeport, type Homeport } from '../../../index.ts';
import { connectClient, jsonEvent, type EventStoreClientModule } from './client-connection.ts';

export interface ClientUnderTest {
  label: string;
  load(): Promise<EventStoreClientModule>;
}

function numberOf(value: { toNumber(): number } | number): number {
  return typeof value === 'number' ? value : value.toNumber();
}

export function clientScenarios(client: ClientUnderTest): void {
  describe(`event log through ${client.label}`, () => {
    let hp: Homeport;
    let dataDir: string;
    let es: EventStoreClientModule;
    let conn: Awaited<ReturnType<typeof connectClient>>;
    let admin: unknown;
    let endpoint: string;
    const stream = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      es = await client.load();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tcp-'));
      hp = await startHomeport({
        dataDir,
        httpPort: 0,
        tcpPort: 0,
        tcpTlsPort: 0,
        // These scenarios read $all and expect only what they wrote.
        runProjections: 'none',
        logToConsole: false,
        rendererDir: null,
      });
      endpoint = `tcp://127.0.0.1:${hp.tcpPort}`;
      conn = await connectClient(es, endpoint);
      admin = new es.UserCredentials('admin', 'changeit');
    });

    afterAll(async () => {
      conn?.close();
      await hp?.close();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('appends with every expected-version case', async () => {
      const s = stream('versions');
      const V = es.expectedVersion;
      const first = await conn.appendToStream(s, V.noStream, [
        jsonEvent(es, 'A', { n: 0 }),
        jsonEvent(es, 'A', { n: 1 }),
      ]);
      expect(numberOf(first.nextExpectedVersion)).toBe(1);
      // The reported position is the one $all shows for the last event written.
      const newest = await conn.readAllEventsBackward(es.positions.end, 10, false, admin);
      const own = newest.events.find(
        (e: { originalEvent: { eventStreamId: string; eventNumber: unknown } }) =>
          e.originalEvent.eventStreamId === s && numberOf(e.originalEvent.eventNumber as never) === 1,
      );
      expect(String(own.originalPosition.commitPosition)).toBe(String(first.logPosition.commitPosition));
      expect(String(own.originalPosition.preparePosition)).toBe(String(first.logPosition.preparePosition));
      await expect(conn.appendToStream(s, V.noStream, jsonEvent(es, 'A', {}))).rejects.toMatchObject({
        name: 'WrongExpectedVersionError',
      });
      expect(numberOf((await conn.appendToStream(s, 1, jsonEvent(es, 'A', { n: 2 }))).nextExpectedVersion)).toBe(2);
      await expect(conn.appendToStream(s, 1, jsonEvent(es, 'A', {}))).rejects.toMatchObject({
        name: 'WrongExpectedVersionError',
      });
      await expect(conn.appendToStream(s, 7, jsonEvent(es, 'A', {}))).rejects.toMatchObject({
        name: 'WrongExpectedVersionError',
      });
      expect(numberOf((await conn.appendToStream(s, V.any, jsonEvent(es, 'A', { n: 3 }))).nextExpectedVersion)).toBe(3);
      expect(numberOf((await conn.appendToStream(s, -4, jsonEvent(es, 'A', { n: 4 }))).nextExpectedVersion)).toBe(4);
      await expect(conn.appendToStream(stream('missing'), -4, jsonEvent(es, 'A', {}))).rejects.toMatchObject({
        name: 'WrongExpectedVersionError',
      });
      expect(
        numberOf((await conn.appendToStream(stream('any'), V.any, jsonEvent(es, 'A', {}))).nextExpectedVersion),
      ).toBe(0);
      // An empty append to a new stream reports the stream's (non-)version.
      expect(numberOf((await conn.appendToStream(stream('empty'), V.noStream, [])).nextExpectedVersion)).toBe(-1);

      const slice = await conn.readStreamEventsForward(s, 0, 10, false);
      expect(slice.events.map((e: { event: { data: Buffer } }) => JSON.parse(e.event.data.toString()).n)).toEqual([
        0, 1, 2, 3, 4,
      ]);
    });

    it('treats a retried append with the same event ids as idempotent', async () => {
      const s = stream('idempotent');
      const events = [jsonEvent(es, 'A', { n: 0 }), jsonEvent(es, 'A', { n: 1 })];
      const a = await conn.appendToStream(s, es.expectedVersion.noStream, events);
      const b = await conn.appendToStream(s, es.expectedVersion.noStream, events);
      const c = await conn.appendToStream(s, es.expectedVersion.any, events);
      expect([a, b, c].map((r) => numberOf(r.nextExpectedVersion))).toEqual([1, 1, 1]);
      const slice = await conn.readStreamEventsForward(s, 0, 10, false);
      expect(slice.events).toHaveLength(2);
      expect(slice.events.map((e: { event: { eventId: string } }) => e.event.eventId)).toEqual(
        events.map((e: { eventId: string }) => e.eventId),
      );
    });

    it('reads single events and stream slices in both directions', async () => {
      const s = stream('reads');
      const ids: string[] = [];
      const events = Array.from({ length: 10 }, (_, n) => {
        const e = jsonEvent(es, 'Counted', { n }, { meta: n });
        ids.push(e.eventId);
        return e;
      });
      await conn.appendToStream(s, es.expectedVersion.noStream, events);

      const one = await conn.readEvent(s, 3, false);
      expect(one.status).toBe('success');
      expect(one.event.event.eventId).toBe(ids[3]);
      expect(one.event.event.eventType).toBe('Counted');
      expect(one.event.event.isJson).toBe(true);
      expect(JSON.parse(one.event.event.metadata.toString())).toEqual({ meta: 3 });
      expect(Math.abs(one.event.event.createdEpoch - Date.now())).toBeLessThan(10 * 60_000);
      expect((await conn.readEvent(s, -1, false)).event.event.eventId).toBe(ids[9]);
      expect((await conn.readEvent(s, 10, false)).status).toBe('notFound');
      expect((await conn.readEvent(stream('nothing'), 0, false)).status).toBe('noStream');

      const forward = await conn.readStreamEventsForward(s, 2, 5, false);
      expect(forward.status).toBe('success');
      expect(
        forward.events.map((e: { event: { eventNumber: unknown } }) => numberOf(e.event.eventNumber as number)),
      ).toEqual([2, 3, 4, 5, 6]);
      expect(numberOf(forward.nextEventNumber)).toBe(7);
      expect(numberOf(forward.lastEventNumber)).toBe(9);
      expect(forward.isEndOfStream).toBe(false);
      const tail = await conn.readStreamEventsForward(s, 7, 100, false);
      expect(tail.events).toHaveLength(3);
      expect(tail.isEndOfStream).toBe(true);

      const backward = await conn.readStreamEventsBackward(s, -1, 4, false);
      expect(
        backward.events.map((e: { event: { eventNumber: unknown } }) => numberOf(e.event.eventNumber as number)),
      ).toEqual([9, 8, 7, 6]);
      expect(numberOf(backward.nextEventNumber)).toBe(5);
      const head = await conn.readStreamEventsBackward(s, 2, 10, false);
      expect(head.events).toHaveLength(3);
      expect(head.isEndOfStream).toBe(true);
      expect((await conn.readStreamEventsForward(stream('none'), 0, 10, false)).status).toBe('streamNotFound');
    });

    it('reads $all in both directions as an admin and denies anonymous readers', async () => {
      const s = stream('all');
      const ids = Array.from({ length: 5 }, () => crypto.randomUUID());
      await conn.appendToStream(
        s,
        es.expectedVersion.noStream,
        ids.map((id, n) => jsonEvent(es, 'AllEvent', { n }, null, id)),
      );

      const backward = await conn.readAllEventsBackward(es.positions.end, 100, false, admin);
      const newest = backward.events
        .filter((e: { event?: { eventStreamId: string } }) => e.event?.eventStreamId === s)
        .map((e: { event: { eventId: string } }) => e.event.eventId);
      expect(newest).toEqual([...ids].reverse());
      expect(backward.nextPosition.compareTo(backward.fromPosition)).toBeLessThan(0);

      const seen: string[] = [];
      let position = es.positions.start;
      let previous: { compareTo(o: unknown): number } | null = null;
      for (;;) {
        const slice = await conn.readAllEventsForward(position, 50, false, admin);
        for (const e of slice.events) {
          if (previous) expect(e.originalPosition.compareTo(previous)).toBeGreaterThan(0);
          previous = e.originalPosition;
          if (e.event?.eventStreamId === s) seen.push(e.event.eventId);
        }
        if (slice.isEndOfStream) break;
        position = slice.nextPosition;
      }
      expect(seen).toEqual(ids);

      await expect(conn.readAllEventsForward(es.positions.start, 10, false)).rejects.toMatchObject({
        name: 'AccessDeniedError',
      });
      await expect(conn.readAllEventsBackward(es.positions.end, 10, false)).rejects.toMatchObject({
        name: 'AccessDeniedError',
      });
    });

    it('soft-deletes a stream, then lets it be recreated with continued numbering', async () => {
      const s = stream('soft');
      await conn.appendToStream(s, es.expectedVersion.noStream, [jsonEvent(es, 'A', {}), jsonEvent(es, 'A', {})]);
      await conn.deleteStream(s, 1, false);
      expect((await conn.readStreamEventsForward(s, 0, 10, false)).status).toBe('streamNotFound');
      expect((await conn.readEvent(s, 0, false)).status).toBe('noStream');
      const again = await conn.appendToStream(s, es.expectedVersion.any, [
        jsonEvent(es, 'B', {}),
        jsonEvent(es, 'B', {}),
      ]);
      expect(numberOf(again.nextExpectedVersion)).toBe(3);
      const slice = await conn.readStreamEventsForward(s, 0, 10, false);
      expect(
        slice.events.map((e: { event: { eventNumber: unknown } }) => numberOf(e.event.eventNumber as number)),
      ).toEqual([2, 3]);
    });

    it('hard-deletes a stream for good', async () => {
      const s = stream('hard');
      await conn.appendToStream(s, es.expectedVersion.noStream, jsonEvent(es, 'A', {}));
      await conn.deleteStream(s, es.expectedVersion.any, true);
      expect((await conn.readStreamEventsForward(s, 0, 10, false)).status).toBe('streamDeleted');
      expect((await conn.readEvent(s, 0, false)).status).toBe('streamDeleted');
      await expect(conn.appendToStream(s, es.expectedVersion.any, jsonEvent(es, 'A', {}))).rejects.toMatchObject({
        name: 'StreamDeletedError',
      });
      await expect(conn.deleteStream(s, es.expectedVersion.any, true)).rejects.toMatchObject({
        name: 'StreamDeletedError',
      });
      const meta = await conn.getStreamMetadataRaw(s);
      expect(meta.isStreamDeleted).toBe(true);
    });

    it('applies $maxCount from stream metadata to reads', async () => {
      const s = stream('maxcount');
      await conn.appendToStream(
        s,
        es.expectedVersion.noStream,
        Array.from({ length: 5 }, (_, n) => jsonEvent(es, 'A', { n })),
      );
      await conn.setStreamMetadataRaw(s, es.expectedVersion.any, { $maxCount: 2, custom: 'kept' });
      const meta = await conn.getStreamMetadataRaw(s);
      expect(meta.streamMetadata).toMatchObject({ $maxCount: 2, custom: 'kept' });
      const slice = await conn.readStreamEventsForward(s, 0, 10, false);
      expect(
        slice.events.map((e: { event: { eventNumber: unknown } }) => numberOf(e.event.eventNumber as number)),
      ).toEqual([3, 4]);
      expect((await conn.readEvent(s, 0, false)).status).toBe('notFound');
    });

    it('enforces a stream ACL against users created through the users API', async () => {
      const s = stream('acl');
      const reader = `reader${crypto.randomUUID().slice(0, 6)}`;
      const other = `other${crypto.randomUUID().slice(0, 6)}`;
      await hp.eventLog.users.add({ name: reader, password: 'secret1' });
      await hp.eventLog.users.add({ name: other, password: 'secret2' });
      await conn.appendToStream(s, es.expectedVersion.noStream, jsonEvent(es, 'A', {}));
      await conn.setStreamMetadataRaw(
        s,
        es.expectedVersion.any,
        { $acl: { $r: [reader], $w: [reader], $mr: [reader], $mw: '$admins' } },
        admin,
      );

      const asReader = new es.UserCredentials(reader, 'secret1');
      const asOther = new es.UserCredentials(other, 'secret2');
      expect((await conn.readStreamEventsForward(s, 0, 10, false, asReader)).events).toHaveLength(1);
      await expect(conn.readStreamEventsForward(s, 0, 10, false, asOther)).rejects.toMatchObject({
        name: 'AccessDeniedError',
      });
      await expect(conn.readStreamEventsForward(s, 0, 10, false)).rejects.toMatchObject({ name: 'AccessDeniedError' });
      await expect(
        conn.appendToStream(s, es.expectedVersion.any, jsonEvent(es, 'A', {}), asOther),
      ).rejects.toMatchObject({ name: 'AccessDeniedError' });
      expect(
        numberOf(
          (await conn.appendToStream(s, es.expectedVersion.any, jsonEvent(es, 'A', {}), asReader)).nextExpectedVersion,
        ),
      ).toBe(1);
    });

    it('resolves link events on request', async () => {
      const target = stream('target');
      const links = stream('links');
      await conn.appendToStream(target, es.expectedVersion.noStream, [
        jsonEvent(es, 'Real', { n: 0 }),
        jsonEvent(es, 'Real', { n: 1 }),
      ]);
      await conn.appendToStream(links, es.expectedVersion.noStream, [
        es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`1@${target}`)),
        es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`7@${target}`)),
      ]);
      const resolved = await conn.readStreamEventsForward(links, 0, 10, true);
      expect(resolved.events[0].isResolved).toBe(true);
      expect(resolved.events[0].event.eventStreamId).toBe(target);
      expect(numberOf(resolved.events[0].event.eventNumber)).toBe(1);
      expect(resolved.events[0].link.eventStreamId).toBe(links);
      // A link whose target does not exist comes back without its event.
      expect(resolved.events[1].event ?? null).toBeNull();
      expect(resolved.events[1].link.eventType).toBe('$>');

      const raw = await conn.readStreamEventsForward(links, 0, 10, false);
      expect(raw.events[0].event.eventType).toBe('$>');
      expect(raw.events[0].event.data.toString()).toBe(`1@${target}`);
      const single = await conn.readEvent(links, 0, true);
      expect(single.event.event.eventStreamId).toBe(target);
    });

    it('commits transactions as one batch', async () => {
      const s = stream('tx');
      const tx = await conn.startTransaction(s, es.expectedVersion.noStream);
      await tx.write(jsonEvent(es, 'T', { n: 0 }));
      await tx.write([jsonEvent(es, 'T', { n: 1 }), jsonEvent(es, 'T', { n: 2 })]);
      expect((await conn.readStreamEventsForward(s, 0, 10, false)).status).toBe('streamNotFound');
      const result = await tx.commit();
      expect(numberOf(result.nextExpectedVersion)).toBe(2);
      const slice = await conn.readStreamEventsForward(s, 0, 10, false);
      expect(slice.events.map((e: { event: { data: Buffer } }) => JSON.parse(e.event.data.toString()).n)).toEqual([
        0, 1, 2,
      ]);

      const conflicting = await conn.startTransaction(s, es.expectedVersion.noStream);
      await conflicting.write(jsonEvent(es, 'T', {}));
      await expect(conflicting.commit()).rejects.toMatchObject({ name: 'WrongExpectedVersionError' });
    });

    it('fails operations with bad credentials (NotAuthenticated)', async () => {
      const s = stream('auth');
      await expect(
        conn.appendToStream(
          s,
          es.expectedVersion.any,
          jsonEvent(es, 'A', {}),
          new es.UserCredentials('admin', 'wrong'),
        ),
      ).rejects.toThrow(/Authentication error/);
      await expect(
        conn.readAllEventsForward(es.positions.start, 1, false, new es.UserCredentials('nobody', 'x')),
      ).rejects.toThrow(/Authentication error/);

      const badDefault = await connectClient(
        es,
        endpoint,
        { defaultUserCredentials: new es.UserCredentials('admin', 'not-the-password') },
        'bad-default',
      );
      try {
        await expect(badDefault.readStreamEventsForward(s, 0, 1, false)).rejects.toThrow(/Authentication error/);
      } finally {
        badDefault.close();
      }
      const goodDefault = await connectClient(es, endpoint, { defaultUserCredentials: admin }, 'good-default');
      try {
        const slice = await goodDefault.readAllEventsBackward(es.positions.end, 1, false);
        expect(slice.events).toHaveLength(1);
      } finally {
        goodDefault.close();
      }
    });

    it('stores and returns a 5 MB event unchanged', async () => {
      const s = stream('big');
      const data = crypto.randomBytes(5 * 1024 * 1024);
      await conn.appendToStream(
        s,
        es.expectedVersion.noStream,
        es.createEventData(crypto.randomUUID(), 'Blob', false, data),
      );
      const read = await conn.readEvent(s, 0, false);
      expect(read.event.event.isJson).toBe(false);
      expect(Buffer.compare(read.event.event.data, data)).toBe(0);
    });

    it('works over TLS and with a localhost endpoint', async () => {
      const s = stream('tls');
      const secure = await connectClient(
        es,
        { host: '127.0.0.1', port: hp.tlsPort! },
        { useSslConnection: true, validateServer: false },
        'tls',
      );
      try {
        await secure.appendToStream(s, es.expectedVersion.noStream, jsonEvent(es, 'A', { over: 'tls' }));
        expect(JSON.parse((await secure.readEvent(s, 0, false)).event.event.data.toString())).toEqual({ over: 'tls' });
      } finally {
        secure.close();
      }
      const local = await connectClient(es, `tcp://localhost:${hp.tcpPort}`, {}, 'localhost');
      try {
        expect((await local.readEvent(s, 0, false)).status).toBe('success');
      } finally {
        local.close();
      }
    });
  });
}

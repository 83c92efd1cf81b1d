import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/wait-for.ts';
import { forEachClient, eventNumberOf, num, positionKey, range, type ResolvedEvent } from './testing/tcp-clients.ts';

/** Volatile and catch-up subscriptions through the real node-eventstore-client, both published generations, against a running Homeport, across the live boundary. */

forEachClient((t) => {
  describe('volatile', () => {
    it('subscribeToStream gets new events of that stream in order, and unsubscribes', async () => {
      const stream = t.streamName('volatile');
      await t.writeMany(stream, 3);
      const got: ResolvedEvent[] = [];
      const sub = await t.conn.subscribeToStream(stream, false, (_s: unknown, e: ResolvedEvent) => {
        got.push(e);
      });
      expect(num(sub.lastEventNumber)).toBe(2);
      await t.writeMany(stream, 5, 2);
      await t.writer.appendToStream(t.streamName('other'), t.es.expectedVersion.any, t.json('Other', {}));
      await waitFor(() => got.length === 5, 'five events');
      expect(got.map(eventNumberOf)).toEqual([3, 4, 5, 6, 7]);
      expect(got.every((e) => e.originalEvent.eventStreamId === stream)).toBe(true);
      expect(
        t.hp.subscriptions.listVolatile().some((v) => v.streamId === stream && v.connectionName === 'subscriber'),
      ).toBe(true);

      sub.unsubscribe();
      await waitFor(
        () => !t.hp.subscriptions.listVolatile().some((v) => v.streamId === stream),
        'server to forget the subscription',
      );
    });

    it('confirms -1 for a stream that does not exist yet', async () => {
      const sub = await t.conn.subscribeToStream(t.streamName('fresh'), false, () => {});
      expect(num(sub.lastEventNumber)).toBe(-1);
      sub.unsubscribe();
    });

    it('subscribeToAll needs read access to $all and then sees every stream', async () => {
      await expect(t.conn.subscribeToAll(false, () => {})).rejects.toThrow(/access denied/i);
      const stream = t.streamName('all');
      const got: ResolvedEvent[] = [];
      const sub = await t.conn.subscribeToAll(
        false,
        (_s: unknown, e: ResolvedEvent) => {
          if (e.originalEvent.eventStreamId === stream) got.push(e);
        },
        undefined,
        t.admin,
      );
      await t.writeMany(stream, 4, 1);
      await waitFor(() => got.length === 4, 'four events');
      expect(got.map(eventNumberOf)).toEqual([0, 1, 2, 3]);
      sub.unsubscribe();
    });

    it('resolves links for subscribers that ask', async () => {
      const target = t.streamName('target');
      const links = t.streamName('links');
      await t.writer.appendToStream(target, t.es.expectedVersion.any, t.json('Thing', { v: 1 }));
      const got: ResolvedEvent[] = [];
      const sub = await t.conn.subscribeToStream(links, true, (_s: unknown, e: ResolvedEvent) => {
        got.push(e);
      });
      await t.writer.appendToStream(
        links,
        t.es.expectedVersion.any,
        t.es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`0@${target}`)),
      );
      await waitFor(() => got.length === 1, 'the link');
      expect(got[0].event.eventStreamId).toBe(target);
      expect(got[0].link.eventStreamId).toBe(links);
      expect(got[0].isResolved).toBe(true);
      sub.unsubscribe();
    });

    it('gives each subscriber of one link its own form, resolved or not, whatever their order', async () => {
      const target = t.streamName('target');
      const links = t.streamName('links');
      await t.writeMany(target, 3);
      // Resolving, plain, resolving: the third asks for the form the second did not (an encoded body kept a step back).
      const got: ResolvedEvent[][] = [[], [], []];
      const subs = [];
      for (const [i, resolve] of [true, false, true].entries())
        subs.push(await t.conn.subscribeToStream(links, resolve, (_s: unknown, e: ResolvedEvent) => got[i].push(e)));
      for (let n = 0; n < 3; n++)
        await t.writer.appendToStream(
          links,
          t.es.expectedVersion.any,
          t.es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`${n}@${target}`)),
        );
      await waitFor(() => got.every((g) => g.length === 3), 'three links for each');
      for (const i of [0, 2]) {
        expect(got[i].map((e) => [e.event.eventStreamId, num(e.event.eventNumber), e.link?.eventStreamId])).toEqual(
          [0, 1, 2].map((n) => [target, n, links]),
        );
      }
      expect(got[1].map((e) => [e.event.eventStreamId, e.event.eventType, e.link])).toEqual(
        [0, 1, 2].map(() => [links, '$>', null]),
      );
      for (const sub of subs) sub.unsubscribe();
    });

    it('subscribeToStreamFrom catches up across the live boundary with a concurrent writer: no gaps, no duplicates', async () => {
      const stream = t.streamName('catchup');
      await t.writeMany(stream, 600, 50);
      const got: number[] = [];
      let live = false;
      const sub = t.conn.subscribeToStreamFrom(
        stream,
        null,
        false,
        (_s: unknown, e: ResolvedEvent) => {
          got.push(eventNumberOf(e));
        },
        () => {
          live = true;
        },
        undefined,
        undefined,
        100,
      );
      await t.writeMany(stream, 600, 3);
      await waitFor(() => live && got.length >= 1200, 'all 1200 events');
      await t.writeMany(stream, 5, 1);
      await waitFor(() => got.length >= 1205, 'live events');
      expect(got).toEqual(range(1205));
      sub.stop();
    });

    it('subscribeToAllFrom catches up across the live boundary with concurrent writers: no gaps, no duplicates', async () => {
      const streams = [t.streamName('all-a'), t.streamName('all-b'), t.streamName('all-c')];
      for (const s of streams) await t.writeMany(s, 150, 25);
      const seen = new Map<string, number[]>(streams.map((s) => [s, []]));
      const positions: [number, number][] = [];
      let live = false;
      const sub = t.conn.subscribeToAllFrom(
        null,
        false,
        (_s: unknown, e: ResolvedEvent) => {
          positions.push(positionKey(e));
          seen.get(e.originalEvent.eventStreamId)?.push(eventNumberOf(e));
        },
        () => {
          live = true;
        },
        undefined,
        t.admin,
        200,
      );
      const writers = streams.map((s) => t.writeMany(s, 150, 2));
      await Promise.all(writers);
      await waitFor(() => live && [...seen.values()].every((n) => n.length >= 300), 'all events of the three streams');
      for (const s of streams) expect(seen.get(s)).toEqual(range(300));
      for (let i = 1; i < positions.length; i++) {
        const [[c0, p0], [c1, p1]] = [positions[i - 1], positions[i]];
        expect(c1 > c0 || (c1 === c0 && p1 > p0)).toBe(true);
      }
      sub.stop();
    });
  });
});

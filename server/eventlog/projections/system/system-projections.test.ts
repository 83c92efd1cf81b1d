import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../tcp/testing/client-connection.ts';
import type { RecordedEvent } from '../../store/types.ts';
import {
  append,
  jsonEvent,
  startFixture,
  tempDataDir,
  waitCaughtUp,
  waitFor,
  type ProjectionsFixture,
} from '../testing/fixture.ts';

/**
 * The standard projections through node-eventstore-client: the links EventStoreDB writes for the same
 * input (type `$>`, data `N@stream`, metadata `$v`, `$c`, `$p`, extra keys, `$causedBy`), read with
 * resolveLinkTos and received live, event by event.
 */

// The client's CommonJS export is untyped here.
type Es = any;

const text = (b: Buffer | Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : '');
const json = (v: unknown) => (v && typeof v === 'object' && !Buffer.isBuffer(v) ? v : JSON.parse(text(v as Buffer)));

/** Closes a client connection and waits until its socket is gone. */
async function closeClient(conn: Es): Promise<void> {
  if (!conn) return;
  const closed = new Promise<void>((resolve) => conn.once('closed', () => resolve()));
  conn.close();
  await closed;
}

/** What EventStoreDB writes into the link's metadata for a source event. */
function linkMetadata(projectionId: number, source: RecordedEvent, extra: Record<string, unknown> = {}) {
  return {
    $v: `${projectionId}:-1:1:4`,
    $c: source.commitPosition,
    $p: source.preparePosition,
    ...extra,
    $causedBy: source.eventId,
  };
}

describe('standard projections', () => {
  let dataDir: string;
  let fx: ProjectionsFixture;
  let es: Es;
  let conn: Es;
  const stored = (streamId: string) =>
    fx.eventLog.store
      .readStreamForward(streamId, 0, 100, false, { name: 'admin', groups: ['$admins'] })
      .events.map((e) => e.event!);

  beforeAll(async () => {
    es = (await import('node-eventstore-client')).default;
    dataDir = tempDataDir();
    // Data written before projections existed (an upgrade): they catch up over it at start.
    const before = await startFixture(dataDir, 'none');
    await append(before.eventLog, 'order-1', [
      jsonEvent('OrderPlaced', { n: 1 }, { $correlationId: 'c-1' }),
      jsonEvent('OrderPaid', { n: 1 }),
    ]);
    await append(before.eventLog, 'order-2', [jsonEvent('OrderPlaced', { n: 2 }, { $correlationId: 'c-1' })]);
    await append(before.eventLog, 'nocategory', [jsonEvent('OrderPlaced', { n: 3 })]);
    await before.stop();
    fx = await startFixture(dataDir);
    conn = await connectClient(es, fx.endpoint);
  });

  afterAll(async () => {
    await closeClient(conn);
    await fx?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function readLinks(streamId: string) {
    const slice = await conn.readStreamEventsForward(streamId, 0, 100, true);
    return slice.events as { event: Es; link: Es }[];
  }

  it('catches up over existing data: $ce-, $et-, $streams, $category-, $bc- as EventStoreDB writes them', async () => {
    await waitCaughtUp(fx.projections!, fx.eventLog);
    const [o1a, o1b] = stored('order-1');
    const [o2] = stored('order-2');
    const [nc] = stored('nocategory');

    const ce = await readLinks('$ce-order');
    expect(ce.map((e) => [e.link.eventType, text(e.link.data), JSON.parse(text(e.link.metadata))])).toEqual([
      ['$>', '0@order-1', { ...linkMetadata(3, o1a, { $o: 'order-1' }), $correlationId: 'c-1' }],
      ['$>', '1@order-1', linkMetadata(3, o1b, { $o: 'order-1' })],
      ['$>', '0@order-2', { ...linkMetadata(3, o2, { $o: 'order-2' }), $correlationId: 'c-1' }],
    ]);
    // Keys in EventStoreDB's order, resolved to the original events.
    expect(Object.keys(JSON.parse(text(ce[0].link.metadata)))).toEqual([
      '$v',
      '$c',
      '$p',
      '$o',
      '$causedBy',
      '$correlationId',
    ]);
    expect(ce.map((e) => [e.event.eventStreamId, e.event.eventId, e.event.eventType])).toEqual([
      ['order-1', o1a.eventId, 'OrderPlaced'],
      ['order-1', o1b.eventId, 'OrderPaid'],
      ['order-2', o2.eventId, 'OrderPlaced'],
    ]);
    for (const e of ce) expect(e.link.isJson).toBe(false);

    const et = await readLinks('$et-OrderPlaced');
    expect(et.map((e) => [text(e.link.data), JSON.parse(text(e.link.metadata))])).toEqual([
      ['0@order-1', { ...linkMetadata(4, o1a), $correlationId: 'c-1' }],
      ['0@order-2', { ...linkMetadata(4, o2), $correlationId: 'c-1' }],
      ['0@nocategory', linkMetadata(4, nc)],
    ]);
    expect((await readLinks('$et-OrderPaid')).map((e) => e.event.eventId)).toEqual([o1b.eventId]);

    const streams = await readLinks('$streams');
    const named = streams.map((e) => text(e.link.data));
    expect(named).toEqual(expect.arrayContaining(['0@order-1', '0@order-2', '0@nocategory']));
    expect(named.filter((n) => !n.startsWith('0@'))).toEqual([]);
    expect(named.some((n) => n.includes('@$'))).toBe(false); // no `$` stream, no `$>` event

    const category = await conn.readStreamEventsForward('$category-order', 0, 100, false);
    expect(category.events.map((e: Es) => [e.event.eventType, text(e.event.data)])).toEqual([
      ['$@', 'order-1'],
      ['$@', 'order-2'],
    ]);

    const bc = await readLinks('$bc-c-1');
    expect(bc.map((e) => e.event.eventId)).toEqual([o1a.eventId, o2.eventId]);
    const bcMeta = JSON.parse(text(bc[0].link.metadata));
    expect(bcMeta.$eventTimestamp).toBe(`${new Date(o1a.created).toISOString().slice(0, 23)}000Z`);
    expect(Object.keys(bcMeta)).toEqual(['$v', '$c', '$p', '$eventTimestamp', '$causedBy', '$correlationId']);

    // The metadata EventStoreDB writes before a projection's first event in a `$` stream: readable by all.
    const meta = await conn.getStreamMetadataRaw('$ce-order');
    expect(json(meta.streamMetadata)).toEqual({ $acl: { $r: '$all', $mr: '$all' } });
  });

  it('links new events live to subscribers of $ce- and $et- streams, with links resolved', async () => {
    const received: { stream: string; id: string; link: string }[] = [];
    // Before its first link the stream has no metadata yet: `$` streams are the admins' by default.
    const admin = new es.UserCredentials('admin', 'changeit');
    const sub = await conn.subscribeToStream(
      '$ce-live',
      true,
      (_s: Es, e: Es) => received.push({ stream: e.event.eventStreamId, id: e.event.eventId, link: text(e.link.data) }),
      undefined,
      admin,
    );
    const etReceived: string[] = [];
    const etSub = await conn.subscribeToStream(
      '$et-LiveHappened',
      true,
      (_s: Es, e: Es) => etReceived.push(e.event.eventId),
      undefined,
      admin,
    );
    const written: { stream: string; id: string; link: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const stream = `live-${i % 3}`;
      const event = jsonEvent('LiveHappened', { i });
      await append(fx.eventLog, stream, [event]);
      written.push({ stream, id: event.eventId, link: `${Math.floor(i / 3)}@${stream}` });
    }
    await waitFor('20 live $ce- events', () => received.length >= 20 && etReceived.length >= 20);
    expect(received).toEqual(written);
    expect(etReceived).toEqual(written.map((w) => w.id));
    sub.unsubscribe();
    etSub.unsubscribe();
  });

  it('links deletions into $ce- and $et-$deleted with "$deleted": -1', async () => {
    await append(fx.eventLog, 'gone-1', [jsonEvent('Something', {})]);
    await fx.eventLog.store.deleteStream('gone-1', -2, false, { name: 'admin', groups: ['$admins'] });
    await append(fx.eventLog, 'gone-2', [jsonEvent('Something', {})]);
    await fx.eventLog.store.deleteStream('gone-2', -2, true, { name: 'admin', groups: ['$admins'] });
    await waitCaughtUp(fx.projections!, fx.eventLog);
    const ce = await conn.readStreamEventsForward('$ce-gone', 0, 100, false);
    const links = ce.events.map((e: Es) => [text(e.event.data), JSON.parse(text(e.event.metadata))]);
    expect(links.map((l: Es) => l[0])).toEqual(['0@gone-1', '0@$$gone-1', '0@gone-2', '9223372036854775807@gone-2']);
    expect(links[1][1]).toMatchObject({ $o: 'gone-1', $deleted: -1 });
    expect(links[3][1]).toMatchObject({ $o: 'gone-2', $deleted: -1 });
    const deleted = await conn.readStreamEventsForward('$et-$deleted', 0, 100, false);
    expect(deleted.events.map((e: Es) => text(e.event.data))).toEqual(['0@gone-1', '9223372036854775807@gone-2']);
  });

  it('resumes from its checkpoints after a restart: no link written twice, none missing', async () => {
    await waitCaughtUp(fx.projections!, fx.eventLog);
    const before = (await readLinks('$ce-order')).length;
    await closeClient(conn);
    await fx.stop();
    fx = await startFixture(dataDir);
    conn = await connectClient(es, fx.endpoint);
    await append(fx.eventLog, 'order-3', [jsonEvent('OrderPlaced', { n: 4 })]);
    await waitCaughtUp(fx.projections!, fx.eventLog);
    const after = await readLinks('$ce-order');
    expect(after.map((e) => text(e.link.data))).toEqual(['0@order-1', '1@order-1', '0@order-2', '0@order-3']);
    expect(after.length).toBe(before + 1);
    const checkpoint = await conn.readStreamEventsBackward(
      '$projections-$by_category-checkpoint',
      -1,
      1,
      false,
      new es.UserCredentials('admin', 'changeit'),
    );
    expect(checkpoint.events[0].event.eventType).toBe('$ProjectionCheckpoint');
    expect(Object.keys(JSON.parse(text(checkpoint.events[0].event.metadata)))).toEqual(['$v', '$c', '$p']);
  });

  it('a disabled projection writes nothing until enabled again, then catches up', async () => {
    const manager = fx.projections!;
    await manager.disable('$by_category');
    expect(manager.get('$by_category').progress.status).toBe('Stopped');
    await append(fx.eventLog, 'order-4', [jsonEvent('OrderPlaced', { n: 5 })]);
    await waitCaughtUp(manager, fx.eventLog);
    expect((await readLinks('$ce-order')).length).toBe(4);
    await manager.enable('$by_category');
    await waitFor('the link of order-4', () => manager.get('$by_category').progress.status === 'Running');
    await waitCaughtUp(manager, fx.eventLog);
    expect((await readLinks('$ce-order')).map((e) => text(e.link.data)).at(-1)).toBe('0@order-4');
  });

  it('registers the standard projections as EventStoreDB does: ids 1-5, created disabled then enabled', async () => {
    const admin = new es.UserCredentials('admin', 'changeit');
    const registry = await conn.readStreamEventsForward('$projections-$all', 0, 100, false, admin);
    expect(registry.events.map((e: Es) => [e.event.eventType, text(e.event.data)])).toEqual([
      ['$ProjectionsInitialized', ''],
      ['$ProjectionCreated', '$streams'],
      ['$ProjectionCreated', '$stream_by_category'],
      ['$ProjectionCreated', '$by_category'],
      ['$ProjectionCreated', '$by_event_type'],
      ['$ProjectionCreated', '$by_correlation_id'],
    ]);
    const definitions = await conn.readStreamEventsForward('$projections-$by_event_type', 0, 2, false, admin);
    const [created, enabled] = definitions.events.map((e: Es) => JSON.parse(text(e.event.data)));
    expect(created).toMatchObject({
      handlerType: 'native:KurrentDB.Projections.Core.Standard.IndexEventsByEventType',
      mode: 'Continuous',
      emitEnabled: true,
      epoch: -1,
      version: 0,
    });
    expect(created.enabled).toBeUndefined();
    expect(enabled).toMatchObject({ enabled: true, version: 1 });
  });
});

describe('--run-projections', () => {
  it('none: no projection runs and no $ce- stream appears; system: the standard ones run', async () => {
    const dataDir = tempDataDir();
    try {
      const off = await startFixture(dataDir, 'none');
      expect(off.projections).toBeNull();
      await append(off.eventLog, 'quiet-1', [jsonEvent('Quiet', {})]);
      expect(off.eventLog.store.lastEventNumber('$ce-quiet')).toBe(-1);
      expect(off.eventLog.store.lastEventNumber('$projections-$all')).toBe(-1);
      await off.stop();
      const on = await startFixture(dataDir, 'system');
      await waitCaughtUp(on.projections!, on.eventLog);
      expect(on.eventLog.store.lastEventNumber('$ce-quiet')).toBe(0);
      await on.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

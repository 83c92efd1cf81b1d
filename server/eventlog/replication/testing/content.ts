/**
 * Test support: a store's worth of everything replication must carry (JSON and binary events, metadata with
 * $maxCount, $tb, ACLs and custom keys, soft and hard deletes, a soft-deleted stream written again, links and
 * system events that stay behind), and a snapshot of what a store holds, to compare source and target.
 */
import crypto from 'node:crypto';
import es from 'node-eventstore-client';
import { expect } from 'vitest';
import { actionFor, NO_FILTER } from '../plan.ts';
import { toSourceEvent } from '../tcp-events.ts';
import { tcpClient } from './serve.ts';

type Connection = es.EventStoreNodeConnection;

function json(type: string, body: unknown, metadata?: unknown): es.EventData {
  // Compact JSON, as the gRPC client writes it back (README: JSON goes through JSON.parse over gRPC).
  const meta = metadata === undefined ? undefined : Buffer.from(JSON.stringify(metadata));
  return es.createEventData(crypto.randomUUID(), type, true, Buffer.from(JSON.stringify(body)), meta);
}

function binary(type: string, bytes: Buffer, metadata?: Buffer): es.EventData {
  return es.createEventData(crypto.randomUUID(), type, false, bytes, metadata);
}

/** Writes the mixed content into a store; `tag` keeps two seedings of one store apart. */
export async function seedMixedContent(c: Connection, tag = 'a'): Promise<void> {
  const any = es.expectedVersion.any;
  for (let i = 0; i < 5; i++)
    await c.appendToStream(
      `order-${tag}`,
      any,
      json('OrderLine', { line: i, sku: `sku-${i}`, price: i * 1.5 }, { by: 'test', i }),
    );
  await c.appendToStream(`blob-${tag}`, any, [
    binary('Blob', crypto.randomBytes(64), Buffer.from([0, 1, 2, 255])),
    binary('Blob', Buffer.alloc(0)),
    binary('Blob', crypto.randomBytes(3000)),
  ]);
  await c.setStreamMetadataRaw(`capped-${tag}`, any, { $maxCount: 3 });
  for (let i = 0; i < 10; i++) await c.appendToStream(`capped-${tag}`, any, json('Tick', { i }));
  await c.appendToStream(`acl-${tag}`, any, [json('Secret', { s: 1 }), json('Secret', { s: 2 })]);
  await c.setStreamMetadataRaw(`acl-${tag}`, any, { $acl: { $r: 'admin', $w: 'admin' }, owner: 'ops', $maxAge: 86400 });
  for (let i = 0; i < 4; i++) await c.appendToStream(`trunc-${tag}`, any, json('Step', { i }));
  await c.setStreamMetadataRaw(`trunc-${tag}`, any, { $tb: 2 });
  await c.appendToStream(`soft-${tag}`, any, [json('Gone', { n: 1 }), json('Gone', { n: 2 })]);
  await c.deleteStream(`soft-${tag}`, any, false);
  await c.appendToStream(`hard-${tag}`, any, [json('Gone', { n: 1 }), json('Gone', { n: 2 })]);
  await c.deleteStream(`hard-${tag}`, any, true);
  await c.appendToStream(`again-${tag}`, any, [json('V1', { n: 1 }), json('V1', { n: 2 })]);
  await c.deleteStream(`again-${tag}`, any, false);
  await c.appendToStream(`again-${tag}`, any, json('V2', { n: 3 }));
  await c.appendToStream(`links-${tag}`, any, binary('$>', Buffer.from(`0@order-${tag}`)));
  await c.appendToStream(`sys-${tag}`, any, json('$internal', { skip: true }));
  await c.appendToStream(`order-${tag}`, any, json('OrderShipped', { at: '2026-11-27' }));
}

export interface StoredEvent {
  streamId: string;
  eventId: string;
  eventType: string;
  isJson: boolean;
  data: string;
  metadata: string;
}

export interface StoreSnapshot {
  /** The user events the replicator copies, in `$all` order. */
  events: StoredEvent[];
  /**
   * Ids of the `$metadata` events of user streams. A target may hold more: writing to a soft-deleted stream
   * makes the server write the stream's new `$tb` itself, and the source's copy of it follows.
   */
  metadataIds: string[];
  /** Streams with a tombstone (the target writes its own, with its own id). */
  tombstoned: string[];
  /** Per user stream: what a reader sees (status, event ids) and its metadata. */
  streams: Record<string, { status: string; eventIds: string[]; metadata: unknown }>;
}

/** What a replication must have made of `source` on `target`. */
export function expectReplicated(target: StoreSnapshot, source: StoreSnapshot): void {
  expect(target.events).toEqual(source.events);
  expect(target.tombstoned).toEqual(source.tombstoned);
  expect(target.streams).toEqual(source.streams);
  expect(target.metadataIds).toEqual(expect.arrayContaining(source.metadataIds));
}

/** How many writes a replication of `source` makes (events, metadata, tombstones). */
export function copiesOf(source: StoreSnapshot): number {
  return source.events.length + source.metadataIds.length + source.tombstoned.length;
}

/** Reads a whole store through node-eventstore-client (admin). */
export async function snapshotStore(c: Connection): Promise<StoreSnapshot> {
  const events: StoredEvent[] = [];
  const metadataIds: string[] = [];
  const tombstoned: string[] = [];
  const streamIds = new Set<string>();
  let from = es.Position.start as unknown as es.Position;
  for (;;) {
    const slice = await c.readAllEventsForward(from, 4096, false);
    for (const resolved of slice.events) {
      if (!resolved.event) continue;
      const e = toSourceEvent(resolved);
      const action = actionFor(NO_FILTER, e);
      if (action === 'skip') continue;
      const streamId = e.streamId.startsWith('$$') ? e.streamId.slice(2) : e.streamId;
      streamIds.add(streamId);
      if (action === 'tombstone') tombstoned.push(e.streamId);
      else if (e.eventType === '$metadata') metadataIds.push(e.eventId);
      else
        events.push({
          streamId: e.streamId,
          eventId: e.eventId,
          eventType: e.eventType,
          isJson: e.isJson,
          data: Buffer.from(e.data).toString('base64'),
          metadata: Buffer.from(e.metadata).toString('base64'),
        });
    }
    if (slice.isEndOfStream || slice.events.length === 0) break;
    from = slice.nextPosition;
  }
  const streams: StoreSnapshot['streams'] = {};
  for (const streamId of [...streamIds].sort()) {
    const slice = await c.readStreamEventsForward(streamId, 0, 4096, false);
    const meta = await c.getStreamMetadataRaw(streamId).catch(() => null);
    streams[streamId] = {
      status: slice.status,
      eventIds: slice.events.map((e) => e.event?.eventId ?? ''),
      metadata: meta?.streamMetadata ?? null,
    };
  }
  return { events, metadataIds, tombstoned, streams };
}

/** The snapshot of a running `homeport serve`, read over TCP. */
export async function snapshotOf(server: { tcpPort: number }): Promise<StoreSnapshot> {
  const c = await tcpClient(server.tcpPort);
  try {
    return await snapshotStore(c);
  } finally {
    c.close();
  }
}

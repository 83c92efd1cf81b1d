/** The streams a persistent group keeps beside its source stream, and how it writes to them. */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../logger.ts';
import {
  metastreamOf,
  SystemEventTypes,
  ExpectedVersion,
  type EventStore,
  type Principal,
  type WriteResult,
} from '../../store/index.ts';
import type { Clock } from '../clock.ts';

export interface GroupContext {
  store: EventStore;
  logger: Logger;
  clock: Clock;
  /** The identity the group reads and writes its own streams with. */
  system: Principal;
}

export const utf8 = new TextEncoder();
export const utf8Decoder = new TextDecoder();

export function groupKey(streamId: string, groupName: string): string {
  return `${streamId}::${groupName}`;
}
export function checkpointStreamOf(streamId: string, groupName: string): string {
  return `$persistentsubscription-${groupKey(streamId, groupName)}-checkpoint`;
}
export function parkedStreamOf(streamId: string, groupName: string): string {
  return `$persistentsubscription-${groupKey(streamId, groupName)}-parked`;
}

/** Appends one event to one of the group's streams as the system identity. */
export function appendGroupEvent(
  ctx: GroupContext,
  streamId: string,
  event: { eventType: string; isJson: boolean; data: Uint8Array; metadata?: Uint8Array },
): Promise<WriteResult> {
  return ctx.store.appendToStream(
    streamId,
    ExpectedVersion.Any,
    [
      {
        eventId: randomUUID(),
        eventType: event.eventType,
        isJson: event.isJson,
        data: event.data,
        metadata: event.metadata ?? new Uint8Array(0),
      },
    ],
    ctx.system,
  );
}

/** Replaces a group stream's metadata document. */
export async function writeStreamMetadata(
  ctx: GroupContext,
  streamId: string,
  raw: Record<string, unknown>,
): Promise<void> {
  const result = await appendGroupEvent(ctx, metastreamOf(streamId), {
    eventType: SystemEventTypes.Metadata,
    isJson: true,
    data: utf8.encode(JSON.stringify(raw)),
  });
  if (result.result !== 'Success')
    throw new Error(`metadata write to ${metastreamOf(streamId)} failed: ${result.result}`);
}

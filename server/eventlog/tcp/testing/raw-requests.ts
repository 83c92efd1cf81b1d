/** Request bodies and names for tests that speak the event-log TCP protocol over raw sockets. */
import crypto from 'node:crypto';
import { guidStringToBytes } from '../guid.ts';
import { encodeMessage, type Int64 } from '../messages.ts';

export const ADMIN = { login: 'admin', password: 'changeit' };

export interface WriteEventsCompleted {
  result: number;
  message?: string;
  firstEventNumber: Int64;
  lastEventNumber: Int64;
}

export function writeEventsBody(
  stream: string,
  events: { type: string; data: string }[],
  expectedVersion = -2,
): Uint8Array {
  return encodeMessage('WriteEvents', {
    eventStreamId: stream,
    expectedVersion,
    requireLeader: true,
    events: events.map((e) => ({
      eventId: guidStringToBytes(crypto.randomUUID()),
      eventType: e.type,
      dataContentType: 1,
      metadataContentType: 0,
      data: Buffer.from(e.data),
    })),
  });
}

/** A stream name unique to this run. */
export function stream(name: string): string {
  return `${name}-${crypto.randomUUID().slice(0, 8)}`;
}

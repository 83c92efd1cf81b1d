/** Helpers shared by the subscription tests (not used by the server). */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openEventLog, type EventLog } from '../../eventlog.ts';
import { ExpectedVersion, type Caller, type EventStore, type NewEvent, type Principal } from '../../store/index.ts';

export const silentLogger = pino({ level: 'silent' });
export const admin: Principal = { name: 'admin', groups: ['$admins'] };
export const ops: Principal = { name: 'ops', groups: ['$ops'] };
export const someone: Principal = { name: 'someone', groups: [] };

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

export function jsonEvent(eventType: string, body: unknown, metadata?: unknown): NewEvent {
  return {
    eventId: randomUUID(),
    eventType,
    isJson: true,
    data: utf8.encode(JSON.stringify(body)),
    metadata: metadata === undefined ? new Uint8Array(0) : utf8.encode(JSON.stringify(metadata)),
  };
}

export function linkEvent(target: { streamId: string; eventNumber: number }): NewEvent {
  return {
    eventId: randomUUID(),
    eventType: '$>',
    isJson: false,
    data: utf8.encode(`${target.eventNumber}@${target.streamId}`),
    metadata: new Uint8Array(0),
  };
}

export function text(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

export async function append(
  store: EventStore,
  streamId: string,
  events: NewEvent[],
  caller: Caller = admin,
): Promise<void> {
  const result = await store.appendToStream(streamId, ExpectedVersion.Any, events, caller);
  if (result.result !== 'Success')
    throw new Error(`append to ${streamId} failed: ${result.result} ${result.message ?? ''}`);
}

export async function appendMany(store: EventStore, streamId: string, count: number, type = 'Tested'): Promise<void> {
  await append(
    store,
    streamId,
    Array.from({ length: count }, (_, i) => jsonEvent(type, { i })),
  );
}

export async function setMetadata(
  store: EventStore,
  streamId: string,
  metadata: Record<string, unknown>,
): Promise<void> {
  await append(store, `$$${streamId}`, [jsonEvent('$metadata', metadata)]);
}

export interface TempEventLog {
  dir: string;
  eventLog: EventLog;
  store: EventStore;
  /** Closes and opens the same data directory again. */
  reopen(): Promise<TempEventLog>;
  close(): Promise<void>;
}

export async function openTempEventLog(
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-subs-')),
): Promise<TempEventLog> {
  const eventLog = await openEventLog({ dataDir: dir, logger: silentLogger });
  let closed = false;
  const self: TempEventLog = {
    dir,
    eventLog,
    store: eventLog.store,
    async reopen() {
      await self.close();
      return openTempEventLog(dir);
    },
    async close() {
      if (closed) return;
      closed = true;
      await eventLog.close();
    },
  };
  return self;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Lets promise callbacks and commit notifications settle. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Helpers for tests that need a real store on a temporary SQLite file. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openDatabase } from '../../../db/index.ts';
import { eventlogMigrations } from '../migrations.ts';
import { SqliteEventStore, type StoreLimits } from '../sqlite-store.ts';
import type { NewEvent, Principal } from '../types.ts';

export const silentLogger = pino({ level: 'silent' });

export const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };
export const OPS: Principal = { name: 'ops', groups: ['$ops'] };

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2024, 0, 1)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

export function tempDir(prefix = 'homeport-eventlog-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TestStore {
  store: SqliteEventStore;
  dir: string;
  file: string;
  /** Closes the store and opens the same file again (e.g. to check what survived). */
  reopen(options?: { clock?: () => number; limits?: Partial<StoreLimits> }): SqliteEventStore;
  close(): Promise<void>;
}

/** A ready store without users (no password hashing, so it opens instantly). */
export function openTestStore(
  options: { dir?: string; clock?: () => number; limits?: Partial<StoreLimits> } = {},
): TestStore {
  const dir = options.dir ?? tempDir();
  const file = path.join(dir, 'eventlog.db');
  const open = (o: { clock?: () => number; limits?: Partial<StoreLimits> }) => {
    const db = openDatabase(file, { migrations: eventlogMigrations, synchronous: 'FULL' });
    const s = new SqliteEventStore({ db, logger: silentLogger, clock: o.clock, limits: o.limits });
    s.markReady();
    return s;
  };
  const handle: TestStore = {
    store: open(options),
    dir,
    file,
    reopen(o = {}) {
      handle.store = open({ clock: o.clock ?? options.clock, limits: o.limits ?? options.limits });
      return handle.store;
    },
    async close() {
      await handle.store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

export function event(
  eventType = 'test-event',
  body: unknown = { n: Math.random() },
  eventId: string = crypto.randomUUID(),
): NewEvent {
  return { eventId, eventType, isJson: true, data: Buffer.from(JSON.stringify(body)), metadata: Buffer.alloc(0) };
}

export function events(count: number, eventType = 'test-event'): NewEvent[] {
  return Array.from({ length: count }, (_, i) => event(eventType, { i }));
}

export function metadataEvent(doc: Record<string, unknown>): NewEvent {
  return event('$metadata', doc);
}

export function linkEvent(target: string): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType: '$>',
    isJson: false,
    data: Buffer.from(target),
    metadata: Buffer.alloc(0),
  };
}

export function json(bytes: Uint8Array | undefined): unknown {
  return bytes ? JSON.parse(Buffer.from(bytes).toString('utf8')) : undefined;
}

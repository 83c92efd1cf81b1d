/**
 * Subscriptions through the real node-eventstore-client, both published generations, against a running Homeport:
 * the clients, their value helpers, and a Homeport per client for a test file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { startHomeport, type Homeport } from '../../../index.ts';
import { connectClient as connectWith } from '../../tcp/testing/client-connection.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Es = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Connection = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResolvedEvent = any;

const clients: { label: string; load: () => Promise<Es> }[] = [
  { label: 'node-eventstore-client 23.10.1', load: async () => (await import('node-eventstore-client')).default },
  { label: 'node-eventstore-client 0.2.19', load: async () => (await import('node-eventstore-client-0.2')).default },
];

/** A connection to `port` that gives up at once when the server goes. */
export const connectClient = (es: Es, port: number, name: string): Promise<Connection> =>
  connectWith(es, `tcp://127.0.0.1:${port}`, { maxReconnections: 0 }, name);

export function num(value: { toNumber(): number } | number): number {
  return typeof value === 'number' ? value : value.toNumber();
}

export function eventNumberOf(e: ResolvedEvent): number {
  return num(e.originalEvent.eventNumber);
}

export function positionKey(e: ResolvedEvent): [number, number] {
  return [num(e.originalPosition.commitPosition), num(e.originalPosition.preparePosition)];
}

/** What a persistent consumer's event handler may do with each event. */
export interface GroupConsumer {
  acknowledge(e: ResolvedEvent): void;
  fail(e: ResolvedEvent, action: number, reason: string): void;
}

export const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

/** A Homeport with a subscriber and a writer connection of one client, for the file's tests (read inside them). */
export class ClientHomeport {
  es: Es;
  hp!: Homeport;
  dataDir = '';
  conn: Connection;
  writer: Connection;
  admin: unknown;

  readonly streamName = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;
  readonly json = (type: string, data: unknown, metadata: unknown = null) =>
    this.es.createJsonEventData(crypto.randomUUID(), data, metadata, type);

  async start(): Promise<void> {
    this.hp = await startHomeport({
      dataDir: this.dataDir,
      httpPort: 0,
      tcpPort: 0,
      tcpTlsPort: 0,
      logToConsole: false,
      rendererDir: null,
    });
    this.conn = await connectClient(this.es, this.hp.tcpPort, 'subscriber');
    this.writer = await connectClient(this.es, this.hp.tcpPort, 'writer');
  }

  async stop(): Promise<void> {
    this.conn?.close();
    this.writer?.close();
    await this.hp?.close();
  }

  async writeMany(stream: string, count: number, batch = 10, type = 'Numbered'): Promise<void> {
    for (let i = 0; i < count; i += batch) {
      const events = range(Math.min(batch, count - i), i).map((n) => this.json(type, { n }));
      await this.writer.appendToStream(stream, this.es.expectedVersion.any, events);
    }
  }

  groupSettings(overrides: Record<string, unknown> = {}) {
    const s = this.es.PersistentSubscriptionSettings.create();
    s.startFrom = 0;
    return Object.assign(s, overrides);
  }

  /** Creates persistent group `g` on `stream` as admin, from the start with `overrides` to the client's defaults. */
  createGroup(stream: string, overrides: Record<string, unknown> = {}): Promise<void> {
    return this.conn.createPersistentSubscription(stream, 'g', this.groupSettings(overrides), this.admin);
  }

  /**
   * Joins group `g` on `stream` as admin with `window` events in flight, over `on` (the subscriber connection
   * unless told): the client acknowledges each event itself after `onEvent` unless `autoAck` is false.
   */
  joinGroup(
    stream: string,
    onEvent: (consumer: GroupConsumer, e: ResolvedEvent) => void,
    options: { window: number; autoAck?: boolean; on?: Connection },
  ): Promise<{ stop(): void }> {
    const { window, autoAck = true, on = this.conn } = options;
    return on.connectToPersistentSubscription(stream, 'g', onEvent, undefined, this.admin, window, autoAck);
  }
}

/** Starts a ClientHomeport for `client` before the enclosing block's tests and removes it after. */
function useClientHomeport(client: { load: () => Promise<Es> }): ClientHomeport {
  const t = new ClientHomeport();
  beforeAll(async () => {
    t.es = await client.load();
    t.admin = new t.es.UserCredentials('admin', 'changeit');
    t.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-subs-clients-'));
    await t.start();
  });
  afterAll(async () => {
    await t.stop();
    if (t.dataDir) fs.rmSync(t.dataDir, { recursive: true, force: true });
  });
  return t;
}

/** `body`'s tests once per client, each client with its own Homeport. */
export function forEachClient(body: (t: ClientHomeport) => void): void {
  for (const client of clients) {
    describe(`subscriptions through ${client.label}`, () => body(useClientHomeport(client)));
  }
}

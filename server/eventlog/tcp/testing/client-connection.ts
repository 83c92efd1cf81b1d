/**
 * Connecting node-eventstore-client (either supported version) to a Homeport and building its events, for
 * the client suite and the other tests that speak the TCP protocol through a real client.
 */
import crypto from 'node:crypto';

/** The library's CommonJS export, untyped here: the two supported versions ship different typings. */
export type EventStoreClientModule = any;

const quietLog = { debug() {}, info() {}, error() {} };

export async function connectClient(
  es: EventStoreClientModule,
  endpoint: string | { host: string; port: number },
  settings: Record<string, unknown> = {},
  name = 'client-suite',
) {
  const connection = es.createConnection({ log: quietLog, maxReconnections: 2, ...settings }, endpoint, name);
  const connected = new Promise<void>((resolve, reject) => {
    connection.once('connected', () => resolve());
    connection.once('closed', (reason: string) => reject(new Error(`connection closed: ${reason}`)));
  });
  await connection.connect();
  await connected;
  return connection;
}

export function jsonEvent(
  es: EventStoreClientModule,
  type: string,
  data: unknown,
  metadata: unknown = null,
  id: string = crypto.randomUUID(),
) {
  return es.createJsonEventData(id, data, metadata, type);
}

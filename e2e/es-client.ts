import crypto from 'node:crypto';
import es from 'node-eventstore-client';

export { es };

const silent = { debug() {}, info() {}, error() {} };

/** A real node-eventstore-client connection to the fixture's TCP port, signed in as admin/changeit. */
export async function connectClient(tcpPort: number, name: string): Promise<es.EventStoreNodeConnection> {
  const connection = es.createConnection(
    { defaultUserCredentials: new es.UserCredentials('admin', 'changeit'), log: silent },
    `tcp://127.0.0.1:${tcpPort}`,
    name,
  );
  const connected = new Promise((resolve) => connection.once('connected', resolve));
  await connection.connect();
  await connected;
  return connection;
}

export function jsonEvent(type: string, data: unknown, metadata: unknown = null): es.EventData {
  return es.createJsonEventData(crypto.randomUUID(), data, metadata, type);
}

/** Appends `count` events numbered in their data ({ n }), in batches as a client would. */
export async function appendMany(
  connection: es.EventStoreNodeConnection,
  stream: string,
  count: number,
  type = 'Tick',
  batch = 250,
): Promise<void> {
  for (let start = 0; start < count; start += batch) {
    const events = Array.from({ length: Math.min(batch, count - start) }, (_, i) => jsonEvent(type, { n: start + i }));
    await connection.appendToStream(stream, es.expectedVersion.any, events);
  }
}

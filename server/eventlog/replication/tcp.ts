/**
 * A replication side over the TCP client protocol (EventStoreDB 5.x–23.10, Homeport), through
 * node-eventstore-client. A connection lives for one attempt: when it closes, whatever is pending fails and
 * the replicator starts over from its checkpoint on a new one.
 */
import fs from 'node:fs';
import tls from 'node:tls';
import es from 'node-eventstore-client';
import { comparePositions } from './plan.ts';
import { positionOf, toSourceEvent } from './tcp-events.ts';
import {
  ReplicationError,
  type LogPosition,
  type ReplicationSource,
  type ReplicationTarget,
  type SourceEvent,
  type StreamTail,
} from './types.ts';

export interface TcpEndpointOptions {
  host: string;
  port: number;
  credentials: { username: string; password: string } | null;
  tls: { verify: boolean; caFile: string | null } | null;
  /** host:port, for messages. */
  description: string;
}

const MAX_READ = 4096;
const USER_EVENT_SCAN = 10_000;
const SILENT_LOG = { debug() {}, info() {}, error() {} };

type Connection = ReturnType<typeof es.createConnection>;

/** CA certificates by `host:port`, for the TLS connections node-eventstore-client opens. */
const trustedCas = new Map<string, Buffer>();

/**
 * node-eventstore-client has no CA option: it calls `tls.connect({ host, port, servername, rejectUnauthorized })`.
 * This wraps tls.connect once to add the CA file given for that host and port; other connections pass untouched.
 */
function trustCa(host: string, port: number, caFile: string): void {
  let ca: Buffer;
  try {
    ca = fs.readFileSync(caFile);
  } catch (err) {
    throw new ReplicationError(`tlsCAFile ${caFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (trustedCas.size === 0) {
    const original = tls.connect;
    const connectWithCa = (...args: unknown[]) => {
      const options = args[0] as tls.ConnectionOptions | undefined;
      const ca =
        options && typeof options === 'object' && !options.ca && trustedCas.get(`${options.host}:${options.port}`);
      if (ca) args[0] = { ...options, ca };
      return (original as (...a: unknown[]) => tls.TLSSocket)(...args);
    };
    tls.connect = connectWithCa as typeof tls.connect;
  }
  trustedCas.set(`${host}:${port}`, ca);
}

/** A connected client, or an error once connecting failed (the server is down or refused). */
async function connect(options: TcpEndpointOptions): Promise<Connection> {
  if (options.tls?.caFile) trustCa(options.host, options.port, options.tls.caFile);
  const settings: es.ConnectionSettings = {
    log: SILENT_LOG,
    maxReconnections: 0,
    // A resent operation could land after the ones sent behind it: failures start over from the checkpoint.
    maxRetries: 0,
    reconnectionDelay: 100,
    operationTimeout: 15_000,
    failOnNoServerResponse: true,
    clientConnectionTimeout: 5000,
    ...(options.credentials
      ? { defaultUserCredentials: new es.UserCredentials(options.credentials.username, options.credentials.password) }
      : {}),
    ...(options.tls ? { useSslConnection: true, validateServer: options.tls.verify } : {}),
  };
  const connection = es.createConnection(settings, { host: options.host, port: options.port }, 'homeport-replicator');
  // Errors come through connect() and the operations; without a listener the emitter would throw them.
  connection.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    connection.once('connected', () => resolve());
    connection.once('closed', (reason: unknown) =>
      reject(new Error(`cannot connect to ${options.description}: ${String(reason)}`)),
    );
    connection.connect().catch(reject);
  });
  return connection;
}

/** Failures the server decided (no retry will change them) become ReplicationErrors. */
function decided(err: unknown, what: string): never {
  const name = (err as { name?: string }).name;
  if ((err as Error).message?.startsWith('Authentication error'))
    throw new ReplicationError(`${what}: the server refused the user name or password`);
  if (name === 'AccessDeniedError' || name === 'WrongExpectedVersionError' || name === 'StreamDeletedError')
    throw new ReplicationError(`${what}: ${(err as Error).message}`);
  throw err;
}

export async function openTcpSource(options: TcpEndpointOptions): Promise<ReplicationSource> {
  const connection = await connect(options);
  return {
    description: options.description,
    async read(after, maxCount) {
      let from = after ? new es.Position(Number(after.commit), Number(after.prepare)) : null;
      for (;;) {
        const slice = await connection
          .readAllEventsForward(from ?? new es.Position(0, 0), Math.min(maxCount + 1, MAX_READ), false)
          .catch((err) => decided(err, `reading $all on ${options.description}`));
        const events = slice.events.filter((e) => e.event).map(toSourceEvent);
        const fresh = after ? events.filter((e) => comparePositions(e.position, after) > 0) : events;
        const next = positionOf(slice.nextPosition);
        if (fresh.length === 0 && slice.events.length > 0 && from && comparePositions(next, positionOf(from)) > 0) {
          from = slice.nextPosition;
          continue;
        }
        return fresh.slice(0, maxCount);
      }
    },
    async headPosition() {
      const slice = await connection.readAllEventsBackward(es.Position.end as unknown as es.Position, 1, false);
      const last = slice.events[0];
      return last?.originalPosition ? positionOf(last.originalPosition) : null;
    },
    async watch(onNew, onDrop) {
      const subscription = await connection.subscribeToAll(
        false,
        () => onNew(),
        (_sub, reason, error) => onDrop(error ?? new Error(`the live subscription ended (${reason})`)),
      );
      return { stop: () => subscription.close() };
    },
    async close() {
      connection.close();
    },
  };
}

export async function openTcpTarget(options: TcpEndpointOptions): Promise<ReplicationTarget> {
  const connection = await connect(options);
  const where = options.description;
  return {
    description: where,
    ordered: true,
    async write(write) {
      if (write.kind === 'tombstone') {
        await connection.deleteStream(write.streamId, es.expectedVersion.any, true).catch((err) => {
          if ((err as { name?: string }).name === 'StreamDeletedError') return;
          decided(err, `deleting ${write.streamId} on ${where}`);
        });
        return;
      }
      const events = write.events.map((e) =>
        es.createEventData(e.eventId, e.eventType, e.isJson, Buffer.from(e.data), Buffer.from(e.metadata)),
      );
      await connection
        .appendToStream(write.streamId, es.expectedVersion.any, events)
        .catch((err) => decided(err, `appending to ${write.streamId} on ${where}`));
    },
    async streamTail(streamId, count): Promise<StreamTail> {
      const slice = await connection
        .readStreamEventsBackward(streamId, -1, Math.min(count, MAX_READ), false)
        .catch((err) => decided(err, `reading ${streamId} on ${where}`));
      if (slice.status === 'streamDeleted') return { eventIds: new Set(), tombstoned: true };
      return { eventIds: new Set(slice.events.map((e) => e.event?.eventId ?? '')), tombstoned: false };
    },
    async lastJson(streamId) {
      const slice = await connection
        .readStreamEventsBackward(streamId, -1, 1, false)
        .catch((err) => decided(err, `reading ${streamId} on ${where}`));
      const data = slice.events[0]?.event?.data;
      if (!data) return null;
      try {
        return JSON.parse(data.toString('utf8'));
      } catch {
        return null;
      }
    },
    async hasUserEvents() {
      let from = es.Position.end as unknown as es.Position;
      for (let seen = 0; seen < USER_EVENT_SCAN; ) {
        const slice = await connection
          .readAllEventsBackward(from, 1000, false)
          .catch((err) => decided(err, `reading $all on ${where}`));
        if (slice.events.some((e) => e.event && !e.event.eventType.startsWith('$'))) return true;
        if (slice.events.length === 0 || slice.isEndOfStream) return false;
        seen += slice.events.length;
        from = slice.nextPosition;
      }
      return true;
    },
    async close() {
      connection.close();
    },
  };
}

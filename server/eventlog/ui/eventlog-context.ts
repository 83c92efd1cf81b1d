import type { VolatileSubscribeRequest, VolatileSubscribeResult } from '../subscriptions/index.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type EventLogUsers,
  type EventStore,
  type Principal,
  type RecordedEvent,
  type ResolvedIndexedEvent,
  LINK_EVENT_TYPE,
  parseLink,
} from '../store/index.ts';
import type { PersistentSubscriptionSettings } from '../subscriptions/index.ts';
import type { ProjectionManager } from '../projections/index.ts';
import type { UiPrincipal } from '../../http/index.ts';

/**
 * What the event-log pages of the UI API need. Everything is reached through getters because the TCP
 * listener (connection registry) and the subscription engines start after the HTTP server does.
 */
export interface EventLogUiDeps {
  store: EventStore;
  users: EventLogUsers;
  /** Connected TCP clients; empty until the TCP listener runs. */
  connections: () => readonly UiConnectionSource[];
  /** The subscription engines' admin face; null until they run. */
  subscriptions: () => UiSubscriptionsSource | null;
  /** Subscribes the UI's live tail as a volatile subscription; absent while the engine does not run. */
  subscribeLive?: (request: VolatileSubscribeRequest) => VolatileSubscribeResult;
  /** The projections subsystem; null (or absent) with `--run-projections none`. */
  projections?: () => ProjectionManager | null;
}

/** A connected TCP client (from the TCP server's connection registry). */
export interface UiConnectionSource {
  id: string;
  connectionName: string;
  /** host:port of the client. */
  remoteAddress: string;
  user: string | null;
  connectedAt: number;
  bytesReceived: number;
  bytesSent: number;
  pendingSendBytes: number;
  pendingSendPackages: number;
  tls: boolean;
}

/** The subscription engines' admin operations, in the UI API's terms (see eventlog-sources.ts for the adapter). */
export interface UiSubscriptionsSource {
  listVolatile(): UiVolatileSubscription[];
  /** Events delivered to volatile subscriptions since start, including subscriptions that have ended. */
  volatileDelivered(): number;
  listGroups(): UiGroupSummary[];
  getGroup(stream: string, group: string): UiGroupDetail | undefined;
  createGroup(
    stream: string,
    group: string,
    settings: Partial<UiGroupSettings>,
    caller: Principal,
  ): Promise<UiGroupOperationResult>;
  updateGroup(
    stream: string,
    group: string,
    settings: Partial<UiGroupSettings>,
    caller: Principal,
  ): Promise<UiGroupOperationResult>;
  deleteGroup(stream: string, group: string, caller: Principal): Promise<UiGroupOperationResult>;
  replayParked(
    stream: string,
    group: string,
    stopAt: number | null,
    caller: Principal,
  ): Promise<UiGroupOperationResult & { replayed?: number }>;
}

export interface UiGroupOperationResult {
  ok: boolean;
  /** 'DoesNotExist' | 'AlreadyExists' | 'AccessDenied' | 'Fail' */
  code?: string;
  message?: string;
}

export interface UiVolatileSubscription {
  id: string;
  /** '$all' for the global log. */
  stream: string;
  filter: string | null;
  connectionId: string;
  connectionName: string;
  remoteAddress: string;
  user: string | null;
  delivered: number;
  resolveLinkTos: boolean;
  subscribedAt: number;
}

/** Group settings, named as the .NET client names them: the subscriptions engine's own shape. */
export type UiGroupSettings = Omit<PersistentSubscriptionSettings, 'consumerStrategy'> & { consumerStrategy: string };

export interface UiGroupSummary {
  stream: string;
  group: string;
  status: string;
  /** Processed messages per second, recent. */
  averagePerSecond: number;
  totalItemsProcessed: number;
  totalItemsDelivered: number;
  /** null until the first checkpoint. */
  lastCheckpointedEventNumber: number | null;
  lastProcessedEventNumber: number | null;
  /** The stream's last event number, null for an empty stream. */
  lastKnownEventNumber: number | null;
  behindByMessages: number;
  inFlight: number;
  parkedCount: number;
  connectionCount: number;
  readBufferCount: number;
  liveBufferCount: number;
  retryBufferCount: number;
  outstandingMessagesCount: number;
}

export interface UiGroupConnection {
  id: string;
  from: string;
  user: string | null;
  connectionName: string;
  connectedAt: number;
  averagePerSecond: number;
  delivered: number;
  acked: number;
  allowedInFlight: number;
  availableSlots: number;
  inFlight: number;
}

export interface UiGroupDetail extends UiGroupSummary {
  settings: UiGroupSettings;
  connections: UiGroupConnection[];
  parkedStream: string;
  checkpointStream: string;
}

/**
 * The event-log principal the UI acts as, so stream ACLs apply: the signed-in event-log account itself, or,
 * for the desktop app's token and the social owner (both the machine's owner), an administrator named after
 * them. An event-log account that is gone or disabled acts as nobody: its session has ended.
 */
export function principalFor(ui: UiPrincipal | undefined, users: EventLogUsers): Principal {
  if (ui?.via === 'eventlog-admin') {
    const user = users.get(ui.name);
    if (user && !user.disabled) return { name: user.name, groups: user.groups };
    throw new UiApiError(401, 'Your session ended. Sign in again.');
  }
  if (ui?.via === 'app-token' || ui?.via === 'social-owner') return { name: ui.name, groups: ['$admins'] };
  throw new UiApiError(401, 'Sign in as the owner to use this API');
}

export function callerOf(req: FastifyRequest, deps: EventLogUiDeps): Principal {
  return principalFor(req.uiPrincipal, deps.users);
}

/** An HTTP error the route layer turns into `{ error }` with the right status. */
export class UiApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof UiApiError) return reply.code(err.status).send({ error: err.message });
  const code = (err as { code?: string }).code;
  if (code === 'HOMEPORT_STORE_BUSY')
    return reply.code(503).send({ error: 'The event store is busy; try again in a moment' });
  if (code === 'HOMEPORT_STORE_NOT_READY') return reply.code(503).send({ error: 'The event store is not ready yet' });
  throw err;
}

/** Maps a store read/write result code to an HTTP error (null for success-like codes). */
export function errorForResult(result: string, stream: string, message?: string): UiApiError | null {
  switch (result) {
    case 'Success':
    case 'NotModified':
      return null;
    case 'NoStream':
      return new UiApiError(404, `Stream "${stream}" does not exist`);
    case 'NotFound':
      return new UiApiError(404, message ?? `Not found in stream "${stream}"`);
    case 'StreamDeleted':
      return new UiApiError(410, `Stream "${stream}" has been deleted`);
    case 'AccessDenied':
      return new UiApiError(403, `Access to "${stream}" is denied by its ACL`);
    case 'WrongExpectedVersion':
      return new UiApiError(409, message ?? `Stream "${stream}" changed; reload and try again`);
    case 'PrepareTimeout':
    case 'CommitTimeout':
    case 'ForwardTimeout':
      return new UiApiError(503, message ?? 'The write timed out; try again');
    default:
      return new UiApiError(400, message ?? `${result} on stream "${stream}"`);
  }
}

/** Per-field cap for data/metadata shown in a page of events; the event page shows everything. */
export const PREVIEW_FIELD_BYTES = 32 * 1024;
/** A whole page of events carries at most this much data text, so a 4096-event page stays a few MiB. */
export const PAGE_PAYLOAD_BYTES = 4 * 1024 * 1024;
export const FULL_FIELD_BYTES = 16 * 1024 * 1024;

export interface UiPayload {
  /** UTF-8 text, or base64 when the bytes are not valid UTF-8. */
  text: string;
  encoding: 'utf8' | 'base64';
  bytes: number;
  truncated: boolean;
}

export interface UiRecord {
  streamId: string;
  eventNumber: number;
  eventId: string;
  eventType: string;
  isJson: boolean;
  created: number;
  size: number;
  data: UiPayload;
  metadata: UiPayload;
  position?: { commitPosition: number; preparePosition: number };
}

/** One row of an event table: the record in the stream being read, plus the target when it is a link. */
export interface UiEvent extends UiRecord {
  /** For `$>` link events: where the link points (parsed from its data). */
  linkTo?: { streamId: string; eventNumber: number };
  /** For resolved links: the target record, or null when it is gone. */
  target?: UiRecord | null;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function payload(bytes: Uint8Array, limit: number): UiPayload {
  const truncated = bytes.byteLength > limit;
  const slice = truncated ? bytes.subarray(0, limit) : bytes;
  try {
    // A cut may split a multi-byte character; `stream: true` keeps the decoder from failing on that tail.
    const text = truncated
      ? new TextDecoder('utf-8', { fatal: true }).decode(slice, { stream: true })
      : strictUtf8.decode(slice);
    return { text, encoding: 'utf8', bytes: bytes.byteLength, truncated };
  } catch {
    return { text: Buffer.from(slice).toString('base64'), encoding: 'base64', bytes: bytes.byteLength, truncated };
  }
}

export function uiRecord(r: RecordedEvent, limit: number, withPosition: boolean): UiRecord {
  const rec: UiRecord = {
    streamId: r.streamId,
    eventNumber: r.eventNumber,
    eventId: r.eventId,
    eventType: r.eventType,
    isJson: r.isJson,
    created: r.created,
    size: r.data.byteLength + r.metadata.byteLength,
    data: payload(r.data, limit),
    metadata: payload(r.metadata, limit),
  };
  if (withPosition) rec.position = { commitPosition: r.commitPosition, preparePosition: r.preparePosition };
  return rec;
}

/** Where a link event points, for the UI (the event log's one link parser; `-1`, "the end", is not shown as a target). */
export function parseLinkData(data: Uint8Array): { streamId: string; eventNumber: number } | undefined {
  const parsed = parseLink(data);
  return parsed.kind === 'link' && parsed.eventNumber >= 0
    ? { streamId: parsed.streamId, eventNumber: parsed.eventNumber }
    : undefined;
}

/** Converts a read entry; `position` is the `$all` position to show (the link's for resolved links). */
export function uiEvent(
  entry: ResolvedIndexedEvent,
  limit: number,
  position?: { commitPosition: number; preparePosition: number },
): UiEvent | null {
  const own = entry.link ?? entry.event;
  if (!own) return null;
  const ev: UiEvent = uiRecord(own, limit, false);
  if (position) ev.position = position;
  if (own.eventType === LINK_EVENT_TYPE) {
    const to = parseLinkData(own.data);
    if (to) ev.linkTo = to;
  }
  if (entry.link) ev.target = entry.event ? uiRecord(entry.event, limit, false) : null;
  return ev;
}

/** Field limit for a page of `count` events. */
export function pageFieldLimit(count: number): number {
  return Math.max(1024, Math.min(PREVIEW_FIELD_BYTES, Math.floor(PAGE_PAYLOAD_BYTES / Math.max(1, count) / 2)));
}

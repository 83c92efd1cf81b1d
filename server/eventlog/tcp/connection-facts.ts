/** Limits, snapshots and totals of event-log TCP connections: the numbers the server, the UI and gRPC's listing share. */
import { MAX_FRAME_BYTES } from './framing.ts';

export interface ConnectionLimits {
  /** Send a heartbeat request after this long without receiving anything (ms). */
  heartbeatIntervalMs: number;
  /** Drop the connection when nothing arrives this long after a heartbeat request (ms). */
  heartbeatTimeoutMs: number;
  /** Hard bound of the send queue: past it the connection is dropped. */
  maxSendQueuePackages: number;
  maxSendQueueBytes: number;
  /** Soft bound used by isBacklogged() (subscriptions drop themselves past it). */
  backlogPackages: number;
  backlogBytes: number;
  /** The largest package a client may send (EventStoreDB clients cap at 64 MB; a desktop store needs far less). */
  maxFrameBytes: number;
  /** The largest reply: the clients' own limit; longer reads are cut into slices that page on. */
  maxReplyBytes: number;
  /** A frame that has started must be complete within this long (slow senders hold memory otherwise). */
  frameDeadlineMs: number;
  /** Bytes of incomplete frames buffered across all connections; the connection that would pass it is closed. */
  maxBufferedBytesTotal: number;
  /** Open connections; more are refused at accept. */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  heartbeatIntervalMs: 2000,
  heartbeatTimeoutMs: 1000,
  maxSendQueuePackages: 50_000,
  maxSendQueueBytes: 256 * 1024 * 1024,
  backlogPackages: 10_000,
  backlogBytes: 32 * 1024 * 1024,
  maxFrameBytes: 16 * 1024 * 1024,
  maxReplyBytes: MAX_FRAME_BYTES,
  frameDeadlineMs: 30_000,
  maxBufferedBytesTotal: 256 * 1024 * 1024,
  maxConnections: 1000,
};

/** A snapshot of one connection for the UI. */
export interface ConnectionInfo {
  id: string;
  /** The name the client gave in IdentifyClient ('' until it identifies). */
  connectionName: string;
  clientVersion: number | null;
  remoteAddress: string;
  remotePort: number;
  /** Connected through the TLS listener. */
  tls: boolean;
  /** Default user (Authenticate), else the last user that sent credentials; null = anonymous so far. */
  user: string | null;
  connectedAt: number;
  bytesReceived: number;
  bytesSent: number;
  packagesReceived: number;
  packagesSent: number;
  pendingSendPackages: number;
  pendingSendBytes: number;
}

/** Totals over every connection a server has had, for diagnostics and tests. */
export interface TcpServerStats {
  connectionsAccepted: number;
  packagesReceived: number;
  packagesSent: number;
  /** BadRequest replies, per request or connection-wide. */
  badRequests: number;
  /** Connections closed for a broken frame, a TrustedWrite, a heartbeat timeout or an overflowing send queue. */
  connectionsDropped: number;
  /** Connections refused at accept because `maxConnections` were open. */
  connectionsRefused: number;
  /** Bytes of incomplete frames buffered now, over all connections. */
  bufferedBytes: number;
}

export function emptyStats(): TcpServerStats {
  return {
    connectionsAccepted: 0,
    packagesReceived: 0,
    packagesSent: 0,
    badRequests: 0,
    connectionsDropped: 0,
    connectionsRefused: 0,
    bufferedBytes: 0,
  };
}

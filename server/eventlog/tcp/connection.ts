/**
 * One client connection of the event-log TCP protocol: reading and the authentication backlog, sending
 * (connection-output.ts), heartbeats (heartbeat.ts) and closing, over one socket. How modules use it: index.ts.
 */
import crypto from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from '../../logger.ts';
import type { Principal } from '../store/index.ts';
import { TcpCommand, TcpFlags } from './commands.ts';
import type { CommandDispatcher, PeerConnection } from './dispatcher.ts';
import { FrameReader, FramingError } from './framing.ts';
import { Heartbeat } from './heartbeat.ts';
import { emptyStats, type ConnectionInfo, type ConnectionLimits, type TcpServerStats } from './connection-facts.ts';
import { newCorrelationId, ZERO_CORRELATION_ID } from './guid.ts';
import { LogThrottle } from '../../security/index.ts';
import { ConnectionOutput } from './connection-output.ts';
import { PACKAGE_HEADER_BYTES, PackageError, parsePackage, type TcpPackage } from './package.ts';

/** Packages held back while an earlier one waits for authentication; past this, reading pauses. */
const MAX_BACKLOG_BEFORE_PAUSE = 4096;
/** How long a closing connection may take to flush before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

export class ClientConnection implements PeerConnection {
  readonly id: string = crypto.randomUUID();
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly secure: boolean;
  readonly connectedAt = Date.now();
  name: string | null = null;
  clientVersion: number | null = null;
  bytesIn = 0;
  bytesOut = 0;
  packagesIn = 0;
  packagesOut = 0;

  private readonly socket: Socket;
  private readonly dispatcher: CommandDispatcher;
  private readonly logger: Logger;
  private readonly limits: ConnectionLimits;
  private readonly reader: FrameReader;
  private readonly stats: TcpServerStats;

  private defaultPrincipal: Principal | null = null;
  private defaultFailed = false;
  private lastUser: string | null = null;

  private readonly output: ConnectionOutput;

  /** Packages waiting while an earlier package's authentication is in progress. */
  private backlog: TcpPackage[] = [];
  private blocked = false;
  private pausedForBacklog = false;

  private readonly heartbeat: Heartbeat;
  private frameTimer: NodeJS.Timeout | null = null;
  /** This connection's share of stats.bufferedBytes. */
  private bufferedBytes = 0;

  private closeListeners = new Set<(reason: string) => void>();
  private ending = false;
  private ended = false;
  private closeReason = '';

  /** Lines any client can cause at will go through one throttle shared by the server's connections. */
  private readonly protocolLog: LogThrottle;

  constructor(
    socket: Socket,
    options: {
      dispatcher: CommandDispatcher;
      logger: Logger;
      limits: ConnectionLimits;
      secure: boolean;
      stats?: TcpServerStats;
      protocolLog?: LogThrottle;
    },
  ) {
    this.protocolLog = options.protocolLog ?? new LogThrottle();
    this.socket = socket;
    this.stats = options.stats ?? emptyStats();
    this.stats.connectionsAccepted++;
    this.dispatcher = options.dispatcher;
    this.limits = options.limits;
    this.secure = options.secure;
    this.remoteAddress = socket.remoteAddress ?? '';
    this.remotePort = socket.remotePort ?? 0;
    this.logger = options.logger.child({ connection: this.id });
    this.reader = new FrameReader({ maxFrameBytes: this.limits.maxFrameBytes, minFrameBytes: PACKAGE_HEADER_BYTES });

    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.output = new ConnectionOutput(socket, options.secure, (err) => {
      this.logger.error({ err }, 'flush failed; closing the connection');
      this.destroy('flush failed');
    });
    socket.on('error', (err) => {
      this.logger.debug({ err }, 'connection error');
      this.finish(`socket error: ${err.message}`);
    });
    socket.on('close', () => this.finish(this.closeReason || 'closed by client'));
    this.heartbeat = new Heartbeat(
      {
        isClosed: () => this.closed,
        requestHeartbeat: () => this.send(TcpCommand.HeartbeatRequestCommand, newCorrelationId(), null),
        heartbeatTimedOut: () => {
          this.noisy(() =>
            this.logger.info(
              { remote: `${this.remoteAddress}:${this.remotePort}` },
              'heartbeat timeout; closing the connection',
            ),
          );
          this.stats.connectionsDropped++;
          this.destroy('heartbeat timeout');
        },
      },
      this.limits,
    );
  }

  // ---- identity and authentication ----

  /** The user set by a successful Authenticate (0xF2), used for packages without credentials. */
  get defaultUser(): Principal | null {
    return this.defaultPrincipal;
  }

  /** True after an Authenticate with bad credentials: packages without credentials get NotAuthenticated. */
  get defaultAuthFailed(): boolean {
    return this.defaultFailed;
  }

  setDefaultUser(principal: Principal | null): void {
    this.defaultPrincipal = principal;
    this.defaultFailed = principal === null;
    if (principal) this.lastUser = principal.name;
  }

  /** Records who used the connection last (for the connection list). */
  noteUser(name: string): void {
    this.lastUser = name;
  }

  get user(): string | null {
    return this.defaultPrincipal?.name ?? this.lastUser;
  }

  /** The largest package this connection sends (what it accepts is `limits.maxFrameBytes`). */
  get maxFrameBytes(): number {
    return this.limits.maxReplyBytes;
  }

  // ---- sending ----

  get closed(): boolean {
    return this.ending || this.ended;
  }

  get pendingSendPackages(): number {
    return this.output.count;
  }

  get pendingSendBytes(): number {
    return this.output.pendingBytes;
  }

  /** True when the send queue is past the soft bound (default: the connection's backlog limits). */
  isBacklogged(bound?: { packages?: number; bytes?: number }): boolean {
    // No default object: this runs once per delivery to every subscriber.
    return (
      this.output.count > (bound?.packages ?? this.limits.backlogPackages) ||
      this.pendingSendBytes > (bound?.bytes ?? this.limits.backlogBytes)
    );
  }

  /** Queues one package (the server never sends credentials). Returns false when the connection is closed. */
  send(command: number, correlationId: Uint8Array, body?: Uint8Array | null): boolean {
    if (this.ending || this.ended) return false;
    this.enqueue(command, correlationId, body ?? null);
    if (this.output.count > this.limits.maxSendQueuePackages || this.pendingSendBytes > this.limits.maxSendQueueBytes) {
      this.logger.warn(
        { packages: this.output.count, bytes: this.pendingSendBytes },
        'send queue over its bound; dropping the connection',
      );
      this.stats.connectionsDropped++;
      this.destroy('send queue overflow');
      return false;
    }
    this.output.schedule();
    return true;
  }

  private enqueue(command: number, correlationId: Uint8Array, body: Uint8Array | null): void {
    const bytes = this.output.push(command, correlationId, body);
    this.stats.packagesSent++;
    if (command === TcpCommand.BadRequest) this.stats.badRequests++;
    this.packagesOut++;
    this.bytesOut += bytes;
  }

  // ---- receiving ----

  private onData(chunk: Buffer): void {
    this.bytesIn += chunk.length;
    this.heartbeat.received();
    if (this.ending || this.ended) return;
    try {
      this.reader.push(chunk, (frame) => this.onFrame(frame));
    } catch (err) {
      if (!(err instanceof FramingError)) throw err;
      this.closeWithBadRequest(`Invalid TCP frame received: ${err.message}`);
    }
    // A closing connection reads no more: its partial package no longer counts against the shared bound.
    if (this.ending || this.ended) {
      this.trackBuffered(0);
      this.clearFrameTimer();
      return;
    }
    this.trackBuffered(this.reader.bufferedBytes);
    if (this.stats.bufferedBytes > this.limits.maxBufferedBytesTotal) {
      this.stats.connectionsDropped++;
      this.closeWithBadRequest('The server is holding too many incomplete packages; this connection is closed');
      this.trackBuffered(0);
      return;
    }
    // A started frame must finish in time: a sender trickling bytes would hold its buffer for ever.
    if (this.bufferedBytes === 0) this.clearFrameTimer();
    else if (!this.frameTimer) {
      this.frameTimer = setTimeout(() => {
        this.frameTimer = null;
        if (this.ended || this.bufferedBytes === 0) return;
        this.stats.connectionsDropped++;
        this.closeWithBadRequest(
          `A package was not completed within ${Math.round(this.limits.frameDeadlineMs / 100) / 10} s`,
        );
        this.trackBuffered(0);
      }, this.limits.frameDeadlineMs);
      this.frameTimer.unref();
    }
  }

  private noisy(write: () => void): void {
    this.protocolLog.log(write, (suppressed) =>
      this.logger.warn({ suppressed }, 'more protocol errors from clients were not logged (too many)'),
    );
  }

  private trackBuffered(bytes: number): void {
    this.stats.bufferedBytes += bytes - this.bufferedBytes;
    this.bufferedBytes = bytes;
  }

  private clearFrameTimer(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    this.frameTimer = null;
  }

  private onFrame(frame: Buffer): void {
    if (this.ending || this.ended) return;
    this.packagesIn++;
    this.stats.packagesReceived++;
    let pkg: TcpPackage;
    try {
      pkg = parsePackage(frame);
    } catch (err) {
      if (err instanceof PackageError) {
        this.closeWithBadRequest(`Invalid TCP frame received: ${err.message}`);
        return;
      }
      throw err;
    }
    this.receive(pkg);
  }

  private receive(pkg: TcpPackage): void {
    // Liveness traffic is answered at once, never held behind other packages.
    if (pkg.command === TcpCommand.HeartbeatRequestCommand) {
      this.send(TcpCommand.HeartbeatResponseCommand, pkg.correlationId, null);
      return;
    }
    if (pkg.command === TcpCommand.HeartbeatResponseCommand) return;
    if (pkg.command === TcpCommand.BadRequest) {
      this.noisy(() =>
        this.logger.info({ message: pkg.body.toString('utf8', 0, 500) }, 'client reported a bad request'),
      );
      return;
    }
    if (pkg.flags & TcpFlags.TrustedWrite) {
      this.send(
        TcpCommand.BadRequest,
        pkg.correlationId,
        Buffer.from('Trusted writes are not accepted on the client interface.'),
      );
      this.stats.connectionsDropped++;
      this.close('trusted write attempted');
      return;
    }
    if (this.blocked) {
      this.backlog.push(pkg);
      if (this.backlog.length > MAX_BACKLOG_BEFORE_PAUSE && !this.pausedForBacklog) {
        this.pausedForBacklog = true;
        this.socket.pause();
      }
      return;
    }
    this.run(pkg);
  }

  private run(pkg: TcpPackage): void {
    let waiting: void | Promise<void>;
    try {
      waiting = this.dispatcher.dispatch(this, pkg);
    } catch (err) {
      this.logger.error({ err }, 'dispatch failed');
      this.send(TcpCommand.BadRequest, pkg.correlationId, Buffer.from('Internal server error'));
      return;
    }
    if (!waiting) return;
    this.blocked = true;
    void waiting.finally(() => {
      this.blocked = false;
      while (!this.blocked && this.backlog.length > 0 && !this.closed) this.run(this.backlog.shift()!);
      if (!this.blocked && this.pausedForBacklog) {
        this.pausedForBacklog = false;
        this.socket.resume();
      }
    });
  }

  // ---- closing ----

  onClose(listener: (reason: string) => void): () => void {
    if (this.ended) {
      queueMicrotask(() => listener(this.closeReason));
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Sends a connection-wide BadRequest (zero correlation id) and closes: clients treat it as fatal. */
  closeWithBadRequest(message: string): void {
    if (this.closed) return;
    this.noisy(() =>
      this.logger.info({ remote: this.remoteAddress, reason: message }, 'closing connection after a broken frame'),
    );
    this.stats.connectionsDropped++;
    this.send(TcpCommand.BadRequest, ZERO_CORRELATION_ID, Buffer.from(message));
    this.close(message);
  }

  /** Flushes what is queued, then ends the connection (destroyed if the peer does not finish in time). */
  close(reason: string): void {
    if (this.closed) return;
    this.ending = true;
    this.closeReason = reason;
    this.output.flush();
    this.socket.end();
    setTimeout(() => this.destroy(reason), CLOSE_GRACE_MS).unref();
  }

  /** Ends the connection at once, dropping anything queued. */
  destroy(reason: string): void {
    if (this.ended) return;
    this.closeReason ||= reason;
    this.ending = true;
    this.socket.destroy();
    this.finish(reason);
  }

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.ending = true;
    this.closeReason ||= reason;
    this.heartbeat.stop();
    this.clearFrameTimer();
    this.trackBuffered(0);
    this.output.stop();
    this.backlog = [];
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const listener of listeners) {
      try {
        listener(this.closeReason);
      } catch (err) {
        this.logger.error({ err }, 'connection close listener failed');
      }
    }
  }

  /** Resolves once the socket is fully closed. */
  whenClosed(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.onClose(() => resolve()));
  }

  info(): ConnectionInfo {
    return {
      id: this.id,
      connectionName: this.name ?? '',
      clientVersion: this.clientVersion,
      remoteAddress: this.remoteAddress,
      remotePort: this.remotePort,
      tls: this.secure,
      user: this.user,
      connectedAt: this.connectedAt,
      bytesReceived: this.bytesIn,
      bytesSent: this.bytesOut,
      packagesReceived: this.packagesIn,
      packagesSent: this.packagesOut,
      pendingSendPackages: this.pendingSendPackages,
      pendingSendBytes: this.pendingSendBytes,
    };
  }
}

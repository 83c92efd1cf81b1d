import type { Logger } from '../../logger.ts';
import type { EventLog } from '../eventlog.ts';
import type { Caller, EventStore, Principal } from '../store/index.ts';
import { BadRequestError } from './codec.ts';
import { commandName, TcpCommand, TcpFlags } from './commands.ts';
import { decodeMessage, encodeMessage, enumTable, type MessageName } from './messages.ts';
import type { TcpPackage } from './package.ts';

/**
 * The command table: one handler per TcpCommand code. The core protocol (handlers/*.ts) and the
 * subscription engines register here; the connection hands every package to `dispatch`.
 * See index.ts for the API overview.
 */

/**
 * What the dispatcher and handlers need of a client connection (connection.ts implements it). Declared
 * here so the command table does not depend on the transport that feeds it.
 */
export interface PeerConnection {
  readonly id: string;
  readonly remoteAddress: string;
  readonly remotePort: number;
  /** Set by IdentifyClient. */
  name: string | null;
  clientVersion: number | null;
  /** The largest package this connection sends. */
  readonly maxFrameBytes: number;
  readonly closed: boolean;
  /** The user set by Authenticate (null: anonymous). */
  readonly defaultUser: Principal | null;
  /** The last Authenticate failed: packages without their own credentials are refused. */
  readonly defaultAuthFailed: boolean;
  setDefaultUser(principal: Principal | null): void;
  /** Records who used the connection last (per-package credentials), for the UI's connection list. */
  noteUser(name: string): void;
  /** Sends one package; false when the connection is gone. */
  send(command: number, correlationId: Uint8Array, body?: Uint8Array | null): boolean;
  /** True past the connection's send backlog bound: subscriptions drop themselves rather than queue. */
  isBacklogged(bound?: { packages?: number; bytes?: number }): boolean;
  /** Runs `listener` once when the connection ends; returns an unsubscribe. */
  onClose(listener: (reason: string) => void): () => void;
}

/** What a handler gets for one request package. */
export interface RequestContext {
  readonly connection: PeerConnection;
  readonly command: number;
  readonly flags: number;
  /** The request's 16 correlation bytes (a private copy; safe to keep). */
  readonly correlationId: Buffer;
  /** Raw body bytes (handlers with `request` also get it decoded). */
  readonly body: Buffer;
  /** Who is asking: per-package credentials, else the connection's default user, else anonymous (null). */
  readonly caller: Caller;
  readonly eventLog: EventLog;
  readonly store: EventStore;
  readonly logger: Logger;
  /** Sends a package with this request's correlation id. Returns false when the connection is gone. */
  reply(command: number, body?: Uint8Array | null): boolean;
  /** Encodes `value` as `message` (required fields checked) and replies with it. */
  replyMessage(command: number, message: MessageName, value: object): boolean;
}

export interface CommandHandler<M = any> {
  /** Protobuf message the body is decoded as; an undecodable body is answered with BadRequest. Absent: raw body. */
  request?: MessageName;
  /** Default true: package credentials are checked first (bad ones → NotAuthenticated). false: runs as the connection's default user, never fails authentication. */
  authenticate?: boolean;
  /** Default true: answered with NotHandled NotReady unless the store is ready. */
  needsStore?: boolean;
  /**
   * Handles one request. Throw (or reject with) BadRequestError for malformed input; StoreBusyError
   * and StoreNotReadyError become NotHandled TooBusy / NotReady; anything else is logged and
   * answered with BadRequest for this correlation id.
   */
  handle(ctx: RequestContext, message: M): void | Promise<void>;
}

export type CommandHandlerMap = Readonly<Record<number, CommandHandler>>;

const NotHandledReason = enumTable<'NotReady' | 'TooBusy' | 'NotLeader' | 'IsReadOnly'>('NotHandled.NotHandledReason');

class Request implements RequestContext {
  readonly connection: PeerConnection;
  readonly command: number;
  readonly flags: number;
  readonly correlationId: Buffer;
  readonly body: Buffer;
  readonly caller: Caller;
  readonly eventLog: EventLog;
  readonly logger: Logger;

  constructor(connection: PeerConnection, pkg: TcpPackage, caller: Caller, eventLog: EventLog, logger: Logger) {
    this.connection = connection;
    this.command = pkg.command;
    this.flags = pkg.flags;
    this.correlationId = pkg.correlationId;
    this.body = pkg.body;
    this.caller = caller;
    this.eventLog = eventLog;
    this.logger = logger;
  }

  get store(): EventStore {
    return this.eventLog.store;
  }

  reply(command: number, body?: Uint8Array | null): boolean {
    return this.connection.send(command, this.correlationId, body);
  }

  replyMessage(command: number, message: MessageName, value: object): boolean {
    return this.connection.send(command, this.correlationId, encodeMessage(message, value));
  }
}

function isStoreError(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

export class CommandDispatcher {
  private readonly handlers = new Map<number, CommandHandler>();
  private readonly eventLog: EventLog;
  private readonly logger: Logger;
  /** Handlers started and not yet settled; drain() waits for none. A count, not a set of promises: a set and
   * `finally` per request cost three promises more per append (issue 31). */
  private inFlight = 0;
  private drainWaiters: (() => void)[] = [];
  /** Set while the server shuts down: new store requests get NotHandled NotReady. */
  stopping = false;

  constructor(eventLog: EventLog, logger: Logger) {
    this.eventLog = eventLog;
    this.logger = logger;
  }

  /** Adds handlers for commands nobody handles yet; registering a command twice is a programming error. */
  registerHandlers(map: CommandHandlerMap): void {
    for (const [key, handler] of Object.entries(map)) {
      const command = Number(key);
      if (!Number.isInteger(command) || command < 0 || command > 0xff)
        throw new RangeError(`not a command code: ${key}`);
      if (this.handlers.has(command)) throw new Error(`${commandName(command)} already has a handler`);
      this.handlers.set(command, handler);
    }
  }

  hasHandler(command: number): boolean {
    return this.handlers.has(command);
  }

  /** Resolves when every handler that has started has finished (for a graceful shutdown). */
  drain(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private readonly settled = (): void => {
    if (--this.inFlight > 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  };

  /**
   * Runs one package. Returns a promise only while it waits for authentication, so the connection
   * can hold later packages back and keep them in arrival order; the handler's own work is not awaited.
   */
  dispatch(connection: PeerConnection, pkg: TcpPackage): void | Promise<void> {
    if (pkg.command === TcpCommand.Authenticate) return this.authenticateConnection(connection, pkg);

    const handler = this.handlers.get(pkg.command);
    if (!handler) {
      connection.send(
        TcpCommand.BadRequest,
        pkg.correlationId,
        Buffer.from(
          `Could not unwrap network package for command ${commandName(pkg.command)}: not supported by this server.`,
        ),
      );
      return;
    }

    let message: unknown = pkg.body;
    if (handler.request) {
      try {
        message = decodeMessage(handler.request, pkg.body);
      } catch (err) {
        connection.send(
          TcpCommand.BadRequest,
          pkg.correlationId,
          Buffer.from(
            `Could not unwrap network package for command ${commandName(pkg.command)}: ${(err as Error).message}`,
          ),
        );
        return;
      }
    }

    if (handler.authenticate !== false) {
      if (pkg.flags & TcpFlags.Authenticated) {
        const users = this.eventLog.users;
        return users.authenticate(pkg.login ?? '', pkg.password ?? '', connection.remoteAddress).then(
          (principal) => {
            if (!principal) {
              connection.send(TcpCommand.NotAuthenticated, pkg.correlationId, Buffer.from('Not Authenticated'));
              return;
            }
            connection.noteUser(principal.name);
            this.invoke(connection, pkg, handler, message, principal);
          },
          (err: unknown) => this.fail(connection, pkg, err),
        );
      }
      if (connection.defaultAuthFailed) {
        connection.send(TcpCommand.NotAuthenticated, pkg.correlationId, Buffer.from('Not Authenticated'));
        return;
      }
    }
    this.invoke(connection, pkg, handler, message, connection.defaultUser);
  }

  private invoke(
    connection: PeerConnection,
    pkg: TcpPackage,
    handler: CommandHandler,
    message: unknown,
    caller: Caller,
  ): void {
    if (handler.needsStore !== false && (this.stopping || this.eventLog.store.status !== 'ready')) {
      this.notHandled(connection, pkg, NotHandledReason.NotReady);
      return;
    }
    const ctx = new Request(connection, pkg, caller, this.eventLog, this.logger);
    let result: void | Promise<void>;
    try {
      result = handler.handle(ctx, message);
    } catch (err) {
      this.fail(connection, pkg, err);
      return;
    }
    if (result && typeof (result as Promise<void>).then === 'function') {
      this.inFlight++;
      (result as Promise<void>).then(this.settled, (err: unknown) => {
        try {
          this.fail(connection, pkg, err);
        } finally {
          this.settled();
        }
      });
    }
  }

  private fail(connection: PeerConnection, pkg: TcpPackage, err: unknown): void {
    if (err instanceof BadRequestError || isStoreError(err, 'HOMEPORT_STORE_BAD_REQUEST')) {
      connection.send(TcpCommand.BadRequest, pkg.correlationId, Buffer.from((err as Error).message));
    } else if (isStoreError(err, 'HOMEPORT_STORE_BUSY')) {
      this.notHandled(connection, pkg, NotHandledReason.TooBusy);
    } else if (isStoreError(err, 'HOMEPORT_STORE_NOT_READY')) {
      this.notHandled(connection, pkg, NotHandledReason.NotReady);
    } else {
      this.logger.error({ err, command: commandName(pkg.command), connection: connection.id }, 'request failed');
      connection.send(
        TcpCommand.BadRequest,
        pkg.correlationId,
        Buffer.from(
          `Internal server error while handling ${commandName(pkg.command)}: ${(err as Error)?.message ?? String(err)}`,
        ),
      );
    }
  }

  private notHandled(connection: PeerConnection, pkg: TcpPackage, reason: number): void {
    connection.send(TcpCommand.NotHandled, pkg.correlationId, encodeMessage('NotHandled', { reason }));
  }

  /** Authenticate (0xF2): sets the connection's default user for packages without credentials. */
  private authenticateConnection(connection: PeerConnection, pkg: TcpPackage): void | Promise<void> {
    if (!(pkg.flags & TcpFlags.Authenticated)) {
      connection.send(TcpCommand.NotAuthenticated, pkg.correlationId, Buffer.from('No user credentials provided.'));
      return;
    }
    return this.eventLog.users.authenticate(pkg.login ?? '', pkg.password ?? '', connection.remoteAddress).then(
      (principal) => {
        connection.setDefaultUser(principal);
        if (principal) connection.send(TcpCommand.Authenticated, pkg.correlationId, null);
        else connection.send(TcpCommand.NotAuthenticated, pkg.correlationId, Buffer.from('Not Authenticated'));
      },
      (err: unknown) => this.fail(connection, pkg, err),
    );
  }
}

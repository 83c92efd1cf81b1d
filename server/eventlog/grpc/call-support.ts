import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../logger.ts';
import { StoreBadRequestError, StoreBusyError, StoreNotReadyError, type Caller } from '../store/index.ts';
import type { SubscriberInfo } from '../subscriptions/index.ts';
import type { Authenticator } from './auth.ts';
import { Errors, grpcError, isGrpcError, type GrpcError } from './errors.ts';
import { MalformedMessage } from './protos.ts';
import { ArrivalGate } from './arrival-gate.ts';

/** What every service handler gets: the store's callers come from here. */
export interface CallContext {
  authenticate: Authenticator;
  logger: Logger;
  streams: StreamCounter;
  writes: WriteTracker;
}

/**
 * Writes handed to the store and not yet answered. On shutdown the listener stops taking new ones and
 * waits for these to answer (as the TCP listener does) before it closes the connections.
 */
export class WriteTracker {
  /** Appends arriving together go to the store together (see arrival-gate.ts). */
  readonly arrivals = new ArrivalGate();
  private running = 0;
  private draining = false;
  private idle: (() => void)[] = [];

  get inFlight(): number {
    return this.running;
  }

  /** Runs one store write; refused with UNAVAILABLE once the server is shutting down. */
  async run<T>(write: () => Promise<T>): Promise<T> {
    if (this.draining) throw grpcError(grpc.status.UNAVAILABLE, 'Server is shutting down.');
    this.running++;
    try {
      return await write();
    } finally {
      this.running--;
      if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Refuses new writes and resolves once the running ones are done. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}

/**
 * Long-lived calls (subscriptions, persistent consumers, BatchAppend, statistics) open at once per
 * connection. Past the bound a call ends at once with RESOURCE_EXHAUSTED, so a client opening ten thousand
 * subscriptions on one connection gets a clear answer for the extra ones and the server keeps a bounded
 * number of them (HTTP/2's own stream limit is set higher, for the short calls beside them).
 */
export class StreamCounter {
  private readonly open = new Map<string, number>();
  private readonly calls = new Set<Outbox<unknown>>();
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }

  /** Counts the call against its connection until it ends; throws when the connection is at the bound. */
  admit(call: { getPeer(): string }, out: Outbox<unknown>): void {
    const peer = call.getPeer();
    const count = this.open.get(peer) ?? 0;
    if (count >= this.limit)
      throw grpcError(
        grpc.status.RESOURCE_EXHAUSTED,
        `At most ${this.limit} subscriptions and streaming calls may be open on one connection.`,
      );
    this.open.set(peer, count + 1);
    this.calls.add(out);
    out.onEnd(() => {
      this.calls.delete(out);
      const left = (this.open.get(peer) ?? 1) - 1;
      if (left === 0) this.open.delete(peer);
      else this.open.set(peer, left);
    });
  }

  /** Ends every open long-lived call with `err` (shutdown: subscriptions never end by themselves). */
  endAll(err: GrpcError): void {
    for (const out of [...this.calls]) out.fail(err);
  }
}

/** Store and programming errors → a status the clients understand; known gRPC errors pass through. */
export function toGrpcError(err: unknown, logger: Logger): GrpcError {
  if (isGrpcError(err)) return err;
  if (err instanceof StoreBusyError) return grpcError(grpc.status.RESOURCE_EXHAUSTED, 'Server too busy.');
  if (err instanceof StoreNotReadyError) return grpcError(grpc.status.UNAVAILABLE, 'Server is not ready.');
  if (err instanceof StoreBadRequestError) return Errors.invalidArgument(err.message);
  logger.error({ err }, 'gRPC call failed');
  return Errors.internal('Internal error.');
}

type UnaryCall = grpc.ServerUnaryCall<unknown, unknown>;

/** A decoded request, or INVALID_ARGUMENT for bytes that are no such message. */
export function wellFormed<T>(message: T | MalformedMessage): T {
  if (message instanceof MalformedMessage)
    throw Errors.invalidArgument(`The request is not a valid protobuf message: ${message.reason}`);
  return message;
}

/** A unary handler from `(request, caller, call) => response`; throws become statuses. */
export function unary<Req, Res>(
  ctx: CallContext,
  handle: (request: Req, caller: Caller, call: UnaryCall) => Promise<Res> | Res,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    (async () => {
      const caller = await ctx.authenticate(call);
      return handle(wellFormed(call.request), caller, call as UnaryCall);
    })().then(
      (response) => callback(null, response),
      (err) => callback(toGrpcError(err, ctx.logger)),
    );
  };
}

/**
 * Writes to a server stream, waiting while the client is not reading (grpc-js buffers otherwise without
 * bound). Resolves false once the call is over (cancelled, or the client went away).
 */
export class Outbox<T> {
  private ended = false;
  private readonly endListeners: (() => void)[] = [];
  private readonly call: grpc.ServerWritableStream<unknown, T> | grpc.ServerDuplexStream<unknown, T>;
  constructor(call: grpc.ServerWritableStream<unknown, T> | grpc.ServerDuplexStream<unknown, T>) {
    this.call = call;
    call.once('cancelled', () => this.markEnded());
    call.once('close', () => this.markEnded());
  }

  private markEnded(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.endListeners.splice(0)) listener();
  }

  /** Runs once when the call is over, whoever ended it. */
  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  get open(): boolean {
    return !this.ended && !this.call.cancelled && !this.call.destroyed;
  }

  /** Messages queued and not yet taken by the transport. */
  get queued(): number {
    return this.call.writableLength;
  }

  /** Queues without waiting (live delivery); false when the call is over. */
  push(message: T): boolean {
    if (!this.open) return false;
    this.call.write(message);
    return true;
  }

  async send(message: T): Promise<boolean> {
    if (!this.open) return false;
    if (this.call.write(message)) return true;
    return this.drained();
  }

  drained(): Promise<boolean> {
    if (!this.open) return Promise.resolve(false);
    if (!this.call.writableNeedDrain) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        this.call.off('drain', onDrain);
        this.call.off('cancelled', onGone);
        this.call.off('close', onGone);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onGone = () => done(false);
      this.call.on('drain', onDrain);
      this.call.once('cancelled', onGone);
      this.call.once('close', onGone);
    });
  }

  /** Ends the call with OK. */
  end(): void {
    if (this.open) this.call.end();
    this.markEnded();
  }

  fail(err: GrpcError): void {
    if (this.open) this.call.emit('error', err);
    this.markEnded();
  }
}

/** A server-streaming handler; a throw ends the call with its status. */
export function serverStream<Req, Res>(
  ctx: CallContext,
  handle: (request: Req, caller: Caller, out: Outbox<Res>, call: grpc.ServerWritableStream<Req, Res>) => Promise<void>,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const out = new Outbox<Res>(call);
    (async () => {
      ctx.streams.admit(call, out as Outbox<unknown>);
      const caller = await ctx.authenticate(call);
      await handle(wellFormed(call.request), caller, out, call);
    })().catch((err) => out.fail(toGrpcError(err, ctx.logger)));
  };
}

/** `google.protobuf.Timestamp` of a Unix-milliseconds time. */
export function timestamp(ms: number): { seconds: string; nanos: number } {
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/** Who holds a subscription, for the monitor: the peer, and the name the client gave (`connection-name`). */
export function subscriberOf(call: { metadata: grpc.Metadata; getPeer(): string }, caller: Caller): SubscriberInfo {
  const name = call.metadata.get('connection-name')[0];
  const peer = call.getPeer();
  return {
    connectionId: `grpc:${peer}`,
    connectionName: typeof name === 'string' ? name : null,
    remoteAddress: peer.replace(/^ipv[46]:/, ''),
    caller,
  };
}

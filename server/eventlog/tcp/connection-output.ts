/**
 * A connection's sending side: packages queue up during a turn of work (a group commit answering many writes,
 * one commit fanned out to every subscriber) and go out in one socket write per connection, after that work, in
 * one flush pass for every connection that has something to send; while the socket drains, nothing is written.
 */
import type { Socket } from 'node:net';
import { OutgoingPackages } from './outgoing.ts';

export class ConnectionOutput {
  /** Connections waiting for the scheduled flush pass, in the order they queued their first package. */
  private static toFlush: ConnectionOutput[] = [];

  private readonly socket: Socket;
  private readonly secure: boolean;
  /** A flush threw (the connection should be closed). */
  private readonly failed: (err: unknown) => void;
  private readonly queue = new OutgoingPackages();
  private scheduled = false;
  private waitingForDrain = false;
  private stopped = false;

  constructor(socket: Socket, secure: boolean, failed: (err: unknown) => void) {
    this.socket = socket;
    this.secure = secure;
    this.failed = failed;
    socket.on('drain', () => {
      this.waitingForDrain = false;
      this.flush();
    });
  }

  /** Packages queued and not yet handed to the socket. */
  get count(): number {
    return this.queue.count;
  }

  /** Bytes queued here plus those the socket holds. */
  get pendingBytes(): number {
    return this.queue.bytes + (this.stopped ? 0 : this.socket.writableLength);
  }

  /** Queues one package; returns its bytes on the wire. */
  push(command: number, correlationId: Uint8Array, body: Uint8Array | null): number {
    return this.queue.push(command, correlationId, body);
  }

  /** Flushes after the current turn's work, with every other connection that queued in it. */
  schedule(): void {
    if (this.scheduled || this.waitingForDrain) return;
    this.scheduled = true;
    // One tick for all of them: a commit fanned out to 100 subscribers scheduled 100 ticks (a closure and a queue
    // entry each).
    if (ConnectionOutput.toFlush.length === 0) process.nextTick(ConnectionOutput.flushPass);
    ConnectionOutput.toFlush.push(this);
  }

  private static flushPass(): void {
    const outputs = ConnectionOutput.toFlush;
    ConnectionOutput.toFlush = [];
    for (const output of outputs) {
      output.scheduled = false;
      try {
        output.flush();
      } catch (err) {
        // One connection's failure must not leave the others' packages unsent.
        output.failed(err);
      }
    }
  }

  /** Writes what is queued now, unless the socket is draining. */
  flush(): void {
    if (this.stopped || this.waitingForDrain || this.queue.count === 0) return;
    // The spare framing buffer only for a plain socket holding nothing: it then either takes every byte now (the
    // buffer is free again) or keeps this one chunk. A TLS socket may keep cleartext until its handshake is done.
    const mayLend = !this.secure && this.socket.writableLength === 0;
    const chunks = this.queue.take(mayLend);
    let writable: boolean;
    if (chunks.length === 1) {
      writable = this.socket.write(chunks[0]);
    } else {
      this.socket.cork();
      writable = true;
      for (const chunk of chunks) writable = this.socket.write(chunk);
      this.socket.uncork();
    }
    if (mayLend) this.queue.recycle(this.socket.writableLength === 0);
    if (!writable) this.waitingForDrain = true;
  }

  /** The connection ended: what is queued is dropped and nothing more is written. */
  stop(): void {
    this.stopped = true;
    this.queue.clear();
  }
}

/** A lean event-log protocol client for the subscription benchmark: frames and messages through the server's own codec. */
import crypto from 'node:crypto';
import net from 'node:net';
import {
  TcpCommand,
  TcpFlags,
  FrameReader,
  encodeFrame,
  parsePackage,
  type TcpPackage,
} from '../../server/eventlog/index.ts';

const ADMIN = { flags: TcpFlags.Authenticated, login: 'admin', password: 'changeit' };

export class WireClient {
  readonly socket: net.Socket;
  private readonly reader = new FrameReader();
  private readonly waiting = new Map<string, (p: TcpPackage) => void>();
  onPackage: (p: TcpPackage) => void = () => {};
  /** When set, frames are only classified by their command byte (no package parsing) once subscribed. */
  countOnly: ((command: number) => void) | null = null;
  /** Called after each socket read has been fully processed. */
  onReadDone: () => void = () => {};

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.reader.push(chunk, (frame) => {
        if (this.countOnly && frame[0] !== TcpCommand.HeartbeatRequestCommand && this.waiting.size === 0) {
          this.countOnly(frame[0]);
          return;
        }
        const pkg = parsePackage(frame);
        if (pkg.command === TcpCommand.HeartbeatRequestCommand) {
          this.socket.write(encodeFrame(TcpCommand.HeartbeatResponseCommand, pkg.correlationId, null));
          return;
        }
        const key = pkg.correlationId.toString('hex');
        const waiter = this.waiting.get(key);
        if (waiter) {
          this.waiting.delete(key);
          waiter(pkg);
        } else this.onPackage(pkg);
      });
      this.onReadDone();
    });
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1', noDelay: true }, () => resolve(new WireClient(socket)));
      socket.once('error', reject);
    });
  }

  request(
    command: number,
    body: Uint8Array | null,
    correlationId = crypto.randomBytes(16),
    options: { flags?: number; login?: string; password?: string } = ADMIN,
  ): Promise<TcpPackage> {
    return new Promise((resolve) => {
      this.waiting.set(correlationId.toString('hex'), resolve);
      this.socket.write(encodeFrame(command, correlationId, body, options));
    });
  }

  send(command: number, correlationId: Buffer, body: Uint8Array | null): void {
    this.socket.write(encodeFrame(command, correlationId, body, ADMIN));
  }

  close(): void {
    this.socket.destroy();
  }
}

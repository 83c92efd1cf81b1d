import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openEventLog, type EventLog, type OpenEventLogOptions } from '../../eventlog.ts';
import { TcpCommand } from '../commands.ts';
import { FrameReader } from '../framing.ts';
import { encodeFrame, parsePackage, type TcpPackage } from '../package.ts';
import { startEventLogTcp, type EventLogTcpOptions, type EventLogTcpServer } from '../server.ts';

/** Helpers for tests that speak the protocol over a raw socket. Not used by the server itself. */

export interface TcpFixture {
  dataDir: string;
  eventLog: EventLog;
  server: EventLogTcpServer;
  port: number;
  close(): Promise<void>;
}

/** An event log plus its TCP listener in a fresh temporary directory (no HTTP, no social server). */
export async function startTcpFixture(
  options: Partial<EventLogTcpOptions> = {},
  eventLogOptions: Partial<OpenEventLogOptions> = {},
): Promise<TcpFixture> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tcp-raw-'));
  const logger = pino({ level: 'silent' });
  const eventLog = await openEventLog({ dataDir, logger, ...eventLogOptions });
  const server = await startEventLogTcp(eventLog, {
    host: '127.0.0.1',
    port: 0,
    tlsPort: null,
    dataDir,
    logger,
    ...options,
  });
  return {
    dataDir,
    eventLog,
    server,
    port: server.tcp.port,
    async close() {
      await server.close();
      await eventLog.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function newId(): Buffer {
  return crypto.randomBytes(16);
}

/** A protocol-speaking socket that collects every package the server sends. */
export class RawClient {
  readonly socket: net.Socket;
  readonly received: TcpPackage[] = [];
  readonly closed: Promise<void>;
  private readonly reader = new FrameReader();
  private waiters: { match: (p: TcpPackage) => boolean; resolve: (p: TcpPackage) => void }[] = [];
  private ended = false;

  /** Heartbeat requests answered so far (when answerHeartbeats is on). */
  heartbeatsAnswered = 0;

  private constructor(socket: net.Socket, answerHeartbeats: boolean) {
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
    });
    socket.on('data', (chunk) => {
      this.reader.push(chunk, (frame) => {
        const pkg = parsePackage(frame);
        if (answerHeartbeats && pkg.command === TcpCommand.HeartbeatRequestCommand) {
          this.send(TcpCommand.HeartbeatResponseCommand, pkg.correlationId);
          this.heartbeatsAnswered++;
          return;
        }
        this.received.push(pkg);
        const waiter = this.waiters.find((w) => w.match(pkg));
        if (waiter) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(pkg);
        }
      });
    });
  }

  /** Connects; with answerHeartbeats the client stays alive like a real one (and hides those packages). */
  static connect(port: number, options: { answerHeartbeats?: boolean } = {}): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1', noDelay: true }, () =>
        resolve(new RawClient(socket, options.answerHeartbeats ?? false)),
      );
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.ended;
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  send(
    command: number,
    correlationId: Buffer,
    body: Uint8Array | null = null,
    options: { flags?: number; login?: string; password?: string } = {},
  ): void {
    this.write(encodeFrame(command, correlationId, body, options));
  }

  /** The first package (already received or still to come) that matches. */
  next(match: (p: TcpPackage) => boolean): Promise<TcpPackage> {
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The reply to a request: the first package carrying that correlation id. */
  reply(correlationId: Buffer): Promise<TcpPackage> {
    return this.next((p) => p.correlationId.equals(correlationId));
  }

  /** Sends a request and waits for the package answering it. */
  request(
    command: number,
    body: Uint8Array | null = null,
    options: { flags?: number; login?: string; password?: string } = {},
  ): Promise<TcpPackage> {
    const id = newId();
    const reply = this.reply(id);
    this.send(command, id, body, options);
    return reply;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

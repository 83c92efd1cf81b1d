import net from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSubscriptions, type Subscriptions } from '../subscriptions/index.ts';
import { subscriptionTcpHandlers } from '../subscriptions/tcp-handlers.ts';
import { TcpCommand } from './commands.ts';
import { decodeMessage, encodeMessage } from './messages.ts';
import { RawClient, startTcpFixture, type TcpFixture } from './test-support.ts';

const ADMIN = { login: 'admin', password: 'changeit' };
let fx: TcpFixture | null = null;
let subs: Subscriptions | null = null;
afterEach(async () => {
  await fx?.server.close();
  await subs?.close();
  await fx?.close();
  fx = null;
  subs = null;
});

function lengthPrefix(bytes: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(bytes, 0);
  return b;
}

async function stillServes(port: number): Promise<void> {
  const good = await RawClient.connect(port, { answerHeartbeats: true });
  try {
    expect((await good.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
  } finally {
    good.destroy();
  }
}

describe('event-log TCP limits', () => {
  it('refuses a package over the configured size with BadRequest before buffering it', async () => {
    fx = await startTcpFixture();
    const c = await RawClient.connect(fx.port);
    c.write(lengthPrefix(17 * 1024 * 1024));
    const bad = await c.next((p) => p.command === TcpCommand.BadRequest);
    expect(String(bad.body)).toMatch(/Invalid TCP frame/);
    await c.closed;
    expect(fx.server.stats.bufferedBytes).toBe(0);
    await stillServes(fx.port);
  });

  it('drops a sender that trickles a package slower than the deadline, and frees its buffer', async () => {
    fx = await startTcpFixture({ limits: { frameDeadlineMs: 300 } });
    const c = await RawClient.connect(fx.port, { answerHeartbeats: true });
    c.write(Buffer.concat([lengthPrefix(1000), Buffer.alloc(10)]));
    const trickle = setInterval(() => c.isClosed || c.write(Buffer.alloc(1)), 50);
    try {
      const bad = await c.next((p) => p.command === TcpCommand.BadRequest);
      expect(String(bad.body)).toMatch(/not completed within/);
      await c.closed;
    } finally {
      clearInterval(trickle);
    }
    expect(fx.server.stats.bufferedBytes).toBe(0);
    await stillServes(fx.port);
  });

  it('bounds incomplete packages across all connections', async () => {
    fx = await startTcpFixture({ limits: { maxBufferedBytesTotal: 1024 * 1024 } });
    const clients = await Promise.all([0, 1, 2].map(() => RawClient.connect(fx!.port, { answerHeartbeats: true })));
    for (const c of clients) c.write(Buffer.concat([lengthPrefix(900 * 1024), Buffer.alloc(450 * 1024)]));
    // Two halves fit in 1 MB, the third does not: its connection is closed, the others keep their buffers.
    await Promise.race(clients.map((c) => c.closed));
    expect(clients.filter((c) => c.isClosed).length).toBeGreaterThanOrEqual(1);
    expect(fx.server.stats.bufferedBytes).toBeLessThanOrEqual(1024 * 1024);
    for (const c of clients) c.destroy();
    await stillServes(fx.port);
  });

  it('refuses connections past the limit and keeps serving the open ones', async () => {
    fx = await startTcpFixture({ limits: { maxConnections: 2 } });
    const a = await RawClient.connect(fx.port, { answerHeartbeats: true });
    const b = await RawClient.connect(fx.port, { answerHeartbeats: true });
    const third = net.connect(fx.port, '127.0.0.1');
    third.on('error', () => {});
    await new Promise((resolve) => third.once('close', resolve));
    expect(fx.server.stats.connectionsRefused).toBe(1);
    expect((await a.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
    expect((await b.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
    a.destroy();
    await a.closed;
    // The server has let go of a (its place counts again) before a new client comes.
    await vi.waitFor(() => expect(fx!.server.connections.size).toBe(1), { timeout: 10_000 });
    await stillServes(fx.port);
    b.destroy();
  });

  it('drops subscriptions past the per-connection limit with SubscriberMaxCountReached', async () => {
    fx = await startTcpFixture();
    subs = startSubscriptions(fx.eventLog.store, { logger: pino({ level: 'silent' }) });
    fx.server.registerHandlers(subscriptionTcpHandlers(subs, { maxPerConnection: 3 }));
    const c = await RawClient.connect(fx.port, { answerHeartbeats: true });
    const replies = [];
    for (let i = 0; i < 5; i++)
      replies.push(
        await c.request(
          TcpCommand.SubscribeToStream,
          encodeMessage('SubscribeToStream', { eventStreamId: `s-${i}`, resolveLinkTos: false }),
          ADMIN,
        ),
      );
    expect(replies.map((r) => r.command)).toEqual([
      TcpCommand.SubscriptionConfirmation,
      TcpCommand.SubscriptionConfirmation,
      TcpCommand.SubscriptionConfirmation,
      TcpCommand.SubscriptionDropped,
      TcpCommand.SubscriptionDropped,
    ]);
    expect(decodeMessage<{ reason: number }>('SubscriptionDropped', replies[3].body).reason).toBe(4);
    expect(subs.volatile.list().length).toBe(3);
    // Unsubscribing frees a place.
    const first = c.received.find((p) => p.command === TcpCommand.SubscriptionConfirmation)!;
    const gone = c.next(
      (p) => p.correlationId.equals(first.correlationId) && p.command === TcpCommand.SubscriptionDropped,
    );
    c.send(TcpCommand.UnsubscribeFromStream, first.correlationId, encodeMessage('UnsubscribeFromStream', {}), ADMIN);
    await gone;
    await vi.waitFor(() => expect(subs!.volatile.list().length).toBe(2), { timeout: 10_000 });
    const again = await c.request(
      TcpCommand.SubscribeToStream,
      encodeMessage('SubscribeToStream', { eventStreamId: 'later', resolveLinkTos: false }),
      ADMIN,
    );
    expect(again.command).toBe(TcpCommand.SubscriptionConfirmation);
    c.destroy();
  });
});

describe('a flood of broken packages', () => {
  it('cannot push the rest of the log out of the Server view', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { startHomeport } = await import('../../index.ts');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-log-flood-'));
    const hp = await startHomeport({
      dataDir,
      httpPort: 0,
      tcpPort: 0,
      tcpTlsPort: null,
      logToConsole: false,
      rendererDir: null,
      logLevel: 'info',
    });
    try {
      const lines: string[] = [];
      const off = hp.logs.subscribe((e) => lines.push(e.msg));
      for (let i = 0; i < 300; i++) {
        const c = await RawClient.connect(hp.tcpPort);
        c.write(lengthPrefix(3)); // shorter than a package header: broken
        await c.closed;
      }
      off();
      const brokenLines = lines.filter((m) => m === 'closing connection after a broken frame');
      expect(brokenLines.length).toBeGreaterThan(0);
      expect(brokenLines.length).toBeLessThanOrEqual(20);
      expect(hp.logs.entries.some((e) => e.msg === 'homeport started')).toBe(true);
    } finally {
      await hp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startServeProcess } from '../../testing/serve-process.ts';
import { startSubscribedTcpFixture } from '../testing/subscribed-fixture.ts';
import { waitFor } from '../testing/wait-for.ts';
import { connectClient } from './testing/client-connection.ts';
import { TcpCommand } from './commands.ts';
import { decodeMessage, encodeMessage } from './messages.ts';
import { RawClient, startTcpFixture, type TcpFixture } from './testing/raw-client.ts';

const ADMIN = { login: 'admin', password: 'changeit' };
let fx: TcpFixture | null = null;
afterEach(async () => {
  await fx?.close();
  fx = null;
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
    const subscribed = await startSubscribedTcpFixture({ subscriptions: { maxPerConnection: 3 } });
    fx = subscribed;
    const subs = subscribed.subscriptions;
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
    await vi.waitFor(() => expect(subs.volatile.list().length).toBe(2), { timeout: 10_000 });
    const again = await c.request(
      TcpCommand.SubscribeToStream,
      encodeMessage('SubscribeToStream', { eventStreamId: 'later', resolveLinkTos: false }),
      ADMIN,
    );
    expect(again.command).toBe(TcpCommand.SubscriptionConfirmation);
    c.destroy();
  });
});

describe('subscriptions over all connections', () => {
  const subscribe = (c: RawClient, stream: string) =>
    c.request(
      TcpCommand.SubscribeToStream,
      encodeMessage('SubscribeToStream', { eventStreamId: stream, resolveLinkTos: false }),
    );

  it('are bounded server-wide: anonymous connections cannot pile them up past the limit', async () => {
    // The attack: many anonymous connections, each opening as many subscriptions as it may (665,000 took 1.4 GB).
    const subscribed = await startSubscribedTcpFixture({ subscriptions: { maxPerConnection: 40, maxTotal: 100 } });
    fx = subscribed;
    const clients = await Promise.all(
      Array.from({ length: 5 }, () => RawClient.connect(subscribed.port, { answerHeartbeats: true })),
    );
    const replies = await Promise.all(
      clients.map((c, n) => Promise.all(Array.from({ length: 40 }, (_, i) => subscribe(c, `flood-${n}-${i}`)))),
    );
    const all = replies.flat();
    const confirmed = all.filter((r) => r.command === TcpCommand.SubscriptionConfirmation);
    const dropped = all.filter((r) => r.command === TcpCommand.SubscriptionDropped);
    expect(confirmed.length).toBe(100);
    expect(dropped.length).toBe(100);
    for (const d of dropped) expect(decodeMessage<{ reason: number }>('SubscriptionDropped', d.body).reason).toBe(4);
    expect(subscribed.subscriptions.volatile.count).toBe(100);

    // The subscriptions that were confirmed still work.
    const first = confirmed[0];
    const owner = clients.find((c) => c.received.includes(first))!;
    const stream = clients.indexOf(owner);
    const firstStream = `flood-${stream}-${replies[stream].indexOf(first)}`;
    const appeared = owner.next(
      (p) => p.command === TcpCommand.StreamEventAppeared && p.correlationId.equals(first.correlationId),
    );
    await subscribed.eventLog.store.appendToStream(
      firstStream,
      -2,
      [
        {
          eventId: crypto.randomUUID(),
          eventType: 'Still',
          isJson: true,
          data: Buffer.from('{}'),
          metadata: Buffer.alloc(0),
        },
      ],
      null,
    );
    await appeared;

    // A connection that ends gives its places back.
    const full = clients.find((c) => c.received.some((p) => p.command === TcpCommand.SubscriptionConfirmation))!;
    const held = full.received.filter((p) => p.command === TcpCommand.SubscriptionConfirmation).length;
    full.destroy();
    await full.closed;
    await waitFor(() => subscribed.subscriptions.volatile.count === 100 - held, 'the closed connection to let go');
    const later = await RawClient.connect(subscribed.port, { answerHeartbeats: true });
    expect((await subscribe(later, 'after')).command).toBe(TcpCommand.SubscriptionConfirmation);
    for (const c of [...clients, later]) c.destroy();
  });

  it('refuses one past the limit in a way node-eventstore-client reports', async () => {
    const subscribed = await startSubscribedTcpFixture({ subscriptions: { maxTotal: 1 } });
    fx = subscribed;
    const es = (await import('node-eventstore-client')).default;
    const conn = await connectClient(es, `tcp://127.0.0.1:${subscribed.port}`, { maxReconnections: 0 }, 'many');
    try {
      const kept = await conn.subscribeToStream('kept', false, () => {});
      await expect(conn.subscribeToStream('refused', false, () => {})).rejects.toThrow("Unsubscribe reason: '4'");
      const admin = new es.UserCredentials('admin', 'changeit');
      const settings = es.PersistentSubscriptionSettings.create();
      await conn.createPersistentSubscription('kept', 'group', settings, admin);
      await expect(conn.connectToPersistentSubscription('kept', 'group', () => {})).rejects.toThrow(
        'Maximum subscribers reached.',
      );
      kept.unsubscribe();
      await waitFor(() => subscribed.subscriptions.volatile.count === 0, 'the unsubscribe');
      const consumer = await conn.connectToPersistentSubscription('kept', 'group', () => {});
      consumer.stop();
    } finally {
      conn.close();
    }
  });
});

describe('the server-wide subscription limit of homeport serve', () => {
  it('is set by HOMEPORT_TCP_MAX_SUBSCRIPTIONS', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-max-subs-'));
    const server = await startServeProcess({ dataDir, env: { HOMEPORT_TCP_MAX_SUBSCRIPTIONS: '2' } });
    try {
      const connect = () => RawClient.connect(server.tcpPort, { answerHeartbeats: true });
      const clients = [await connect(), await connect()];
      const replies = [];
      for (const [i, c] of [clients[0], clients[1], clients[1]].entries())
        replies.push(
          await c.request(
            TcpCommand.SubscribeToStream,
            encodeMessage('SubscribeToStream', { eventStreamId: `s-${i}`, resolveLinkTos: false }),
          ),
        );
      expect(replies.map((r) => r.command)).toEqual([
        TcpCommand.SubscriptionConfirmation,
        TcpCommand.SubscriptionConfirmation,
        TcpCommand.SubscriptionDropped,
      ]);
      for (const c of clients) c.destroy();
    } finally {
      await server.stop('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a flood of broken packages', () => {
  it('cannot push the rest of the log out of the Server view', async () => {
    const { startTestHomeport } = await import('../../testing/homeport.ts');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-log-flood-'));
    const hp = await startTestHomeport(dataDir, { tcpTlsPort: null, logLevel: 'info' });
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

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpCommand } from './commands.ts';
import { RawClient, startTcpFixture, type TcpFixture } from './testing/raw-client.ts';

/** Holds this process's event loop (the server's here) for `ms`, as a starved or busy server is held. */
function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else runs meanwhile
  }
}

/** Resolves on the first turn of the event loop (check phase) after `done()` holds. */
function whenTrue(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (done() ? resolve() : setImmediate(check));
    check();
  });
}

describe('event-log TCP heartbeats on a server that falls behind', () => {
  let fx: TcpFixture;
  const limits = { heartbeatIntervalMs: 50, heartbeatTimeoutMs: 200 };
  beforeAll(async () => {
    fx = await startTcpFixture({ limits });
  });
  afterAll(async () => {
    await fx?.close();
  });

  // The soak (bench/soak.ts) on a loaded machine: every TCP subscriber dropped though each answered in time. The
  // server's timeout fired after a long turn of its own, before it read the answer already waiting on the socket.
  it('keeps a client whose answer arrived while the server was busy past the timeout', async () => {
    const client = await RawClient.connect(fx.port, { answerHeartbeats: true });
    try {
      // The answer is written; the server has not read it yet when its loop is held past the timeout.
      await whenTrue(() => client.heartbeatsAnswered >= 1);
      holdEventLoop(limits.heartbeatTimeoutMs * 3);
      const answer = await Promise.race([
        client.request(TcpCommand.Ping).then((reply) => reply.command),
        client.closed.then(() => 'closed by the server'),
      ]);
      expect(answer).toBe(TcpCommand.Pong);
    } finally {
      client.destroy();
    }
  });

  it('still drops a client that never answers', async () => {
    const silent = await RawClient.connect(fx.port);
    await silent.next((p) => p.command === TcpCommand.HeartbeatRequestCommand);
    holdEventLoop(limits.heartbeatTimeoutMs * 3);
    await silent.closed;
    expect(silent.isClosed).toBe(true);
  });
});

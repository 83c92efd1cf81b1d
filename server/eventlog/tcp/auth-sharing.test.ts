import esClient from 'node-eventstore-client';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../grpc/testing/homeport.ts';
import { verifyPassword } from '../store/passwords.ts';
import { connectClient } from './testing/client-connection.ts';
import { startTcpFixture, type TcpFixture } from './testing/raw-client.ts';

const es = esClient as any;
let fx: TcpFixture | null = null;
const connections: { close(): void }[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await fx?.close();
  fx = null;
});

/**
 * A server whose password checks wait at a gate the test opens, and which counts the sign-ins that reached
 * `users.authenticate` and the scrypt checks they cost.
 */
async function gatedServer() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const counts = { signIns: 0, checks: 0 };
  fx = await startTcpFixture(
    {},
    {
      verifyPassword: async (password, stored) => {
        counts.checks++;
        await gate;
        return verifyPassword(password, stored);
      },
    },
  );
  const users = fx.eventLog.users;
  const authenticate = users.authenticate.bind(users);
  users.authenticate = (...args) => {
    counts.signIns++;
    return authenticate(...args);
  };
  return { fx, counts, open };
}

async function connect(port: number) {
  const conn = await connectClient(es, { host: '127.0.0.1', port }, {}, `sharing-${connections.length}`);
  connections.push(conn);
  return conn;
}

/** A read carrying its own credentials: each is a sign-in, as a subscription's or an append's would be. */
function signedRead(conn: any, password: string, user = 'admin') {
  return conn.readStreamEventsForward('shared-check', 0, 1, false, new es.UserCredentials(user, password));
}

describe('one password check for sign-ins sent together', () => {
  it('lets twenty connections signing in at once with the same credentials share one scrypt run', async () => {
    const { fx, counts, open } = await gatedServer();
    const conns = await Promise.all(Array.from({ length: 20 }, () => connect(fx.port)));
    const reading = Promise.all(conns.map((c) => signedRead(c, 'changeit')));
    await waitFor(() => counts.signIns === 20, 'twenty sign-ins');
    open();
    const reads = await reading;
    expect(reads.map((r: any) => r.status)).toEqual(Array(20).fill('streamNotFound'));
    expect(counts.checks).toBe(1);
  });

  it('counts each of identical wrong sign-ins sent together as its own failed attempt', async () => {
    const { fx, counts, open } = await gatedServer();
    open();
    const conns = await Promise.all(Array.from({ length: 10 }, () => connect(fx.port)));
    // Ten guesses at once share one check, yet each is refused and counted (ten is the per-user-and-address limit)...
    const refusals = await Promise.allSettled(conns.map((c) => signedRead(c, 'wrong', 'ops')));
    expect(refusals.map((r) => r.status === 'rejected' && /Authentication error/.test(String(r.reason)))).toEqual(
      Array(10).fill(true),
    );
    expect(counts.checks).toBe(1);
    // ...so the next attempt at ops from this address is refused without a check, right password or not.
    await expect(signedRead(conns[0], 'changeit', 'ops')).rejects.toThrow(/Authentication error/);
    expect(counts.checks).toBe(1);
  });

  it('does not let a sign-in that arrives after a password change join a check started before it', async () => {
    const { fx, counts, open } = await gatedServer();
    const [first, second, third] = await Promise.all([connect(fx.port), connect(fx.port), connect(fx.port)]);
    const before = signedRead(first, 'changeit');
    await waitFor(() => counts.checks === 1, 'the first check');
    await fx.eventLog.users.changePassword('admin', 'new-secret');
    const after = signedRead(second, 'changeit').then(
      () => 'signed in',
      (err: unknown) => String(err),
    );
    await waitFor(() => counts.signIns === 2, 'the second sign-in');
    open();
    // The check that started before the change answers as the old row did; the later one runs its own.
    await before;
    expect(await after).toMatch(/Authentication error/);
    expect(counts.checks).toBe(2);
    // Nor is the old password remembered from the check that straddled the change.
    await expect(signedRead(third, 'changeit')).rejects.toThrow(/Authentication error/);
    await signedRead(third, 'new-secret');
  });
});

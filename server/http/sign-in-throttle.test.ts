import crypto from 'node:crypto';
import es from 'node-eventstore-client';
import { describe, expect, it } from 'vitest';
import { connectClient } from '../eventlog/tcp/testing/client-connection.ts';
import { useTestHomeport } from './testing/homeport.ts';

/*
 * Issue 25, finding 3: failed sign-ins from one address locked the owner out everywhere (UI and TCP shared a
 * per-user count). Behind a proxy (--trust-proxy) each forwarded address is a client of its own, which lets one
 * test play many attackers; the owner then signs in from addresses the attack never used.
 */
const server = useTestHomeport({ trustProxy: true });

const signIn = (password: string, from?: string) =>
  fetch(`${server.hp.httpUrl}/api/homeport/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(from ? { 'x-forwarded-for': from } : {}) },
    body: JSON.stringify({ username: 'admin', password }),
  }).then((r) => r.status);

describe('failed sign-ins', () => {
  it('from other addresses never lock the right password out (UI and TCP)', async () => {
    // Twelve guesses from one address: it is refused after ten...
    const first: number[] = [];
    for (let i = 0; i < 12; i++) first.push(await signIn(`guess-${i}`, '203.0.113.1'));
    expect(first.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(first.slice(10)).toEqual([429, 429]);
    // ...and forty more from four other addresses (past the former per-user bound of 50).
    await Promise.all(
      [2, 3, 4, 5].map(async (a) => {
        for (let i = 0; i < 10; i++) await signIn(`guess-${a}-${i}`, `203.0.113.${a}`);
      }),
    );

    // The owner's event-log client on this machine still signs in (checked before any UI sign-in, whose success
    // the event log would remember for a minute).
    const client = await connectClient(es, `tcp://127.0.0.1:${server.hp.tcpPort}`, {
      defaultUserCredentials: new es.UserCredentials('admin', 'changeit'),
      maxReconnections: 0,
    });
    try {
      const written = await client.appendToStream('owner-check', es.expectedVersion.noStream, [
        es.createJsonEventData(crypto.randomUUID(), {}, null, 'Checked'),
      ]);
      expect(written.nextExpectedVersion.toNumber()).toBe(0);
    } finally {
      client.close();
    }
    // So does the UI, from this machine and from a forwarded address the attack did not use.
    expect(await signIn('changeit')).toBe(200);
    expect(await signIn('changeit', '198.51.100.7')).toBe(200);
    // The attacking address stays refused, right password or not.
    expect(await signIn('changeit', '203.0.113.1')).toBe(429);
  }, 180_000);
});

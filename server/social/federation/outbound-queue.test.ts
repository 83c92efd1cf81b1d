import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJwk, generateCryptoKeyPair, InProcessMessageQueue, MemoryKvStore, verifyRequest } from '@fedify/fedify';
import { CryptographicKey } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundQueue } from './outbound-queue.ts';

/*
 * Fedify's outbox messages through OutboundQueue: a real loopback peer checks what the delivery worker sends
 * (the signature over the listed headers, the digest, the body), and every case the worker must not or could
 * not deliver reaches the handler Fedify gave (its own delivery with retries), the peer getting nothing from
 * the worker when the address guard is on.
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  url: string;
  body: string;
}

let peer: http.Server;
let base: string;
let port: number;
let answer = 202;
const received: Received[] = [];
const keyId = 'https://here.example/users/alice#main-key';
let aliceKey: CryptographicKey;
let jwk: JsonWebKey;

beforeAll(async () => {
  const pair = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  aliceKey = new CryptographicKey({
    id: new URL(keyId),
    owner: new URL('https://here.example/users/alice'),
    publicKey: pair.publicKey,
  });
  jwk = await exportJwk(pair.privateKey);
  peer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  port = (peer.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => {
  peer?.close();
});

function outboxMessage(inbox: string, n: number) {
  return {
    type: 'outbox',
    id: crypto.randomUUID(),
    baseUrl: 'https://here.example',
    keys: [{ keyId, privateKey: jwk }],
    activity: { '@context': 'https://www.w3.org/ns/activitystreams', type: 'Create', id: `https://here.example/${n}` },
    activityId: `https://here.example/${n}`,
    inbox,
    sharedInbox: true,
    started: new Date().toISOString(),
    attempt: 0,
    headers: {},
  };
}

/** Runs `queue` with a handler that records what it is given; `until` says when to stop. */
async function handled(
  queue: OutboundQueue,
  messages: unknown[],
  until: (toFedify: unknown[]) => boolean,
): Promise<unknown[]> {
  const toFedify: unknown[] = [];
  const stop = new AbortController();
  const listening = queue.listen((m) => void toFedify.push(m), { signal: stop.signal });
  await queue.enqueueMany(messages);
  const deadline = Date.now() + 20_000;
  while (!until(toFedify)) {
    if (Date.now() > deadline) throw new Error('the deliveries never ended as expected');
    await new Promise((r) => setTimeout(r, 10));
  }
  stop.abort();
  await listening;
  return toFedify;
}

/** Whether Fedify's own verifyRequest takes `r`'s signature (draft-cavage, with the body's Digest) as alice's. */
async function signedByAlice(r: Received): Promise<boolean> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(r.headers)) if (typeof value === 'string') headers.set(name, value);
  const request = new Request(`${base}${r.url}`, { method: 'POST', headers, body: r.body });
  const key = await verifyRequest(request, {
    keyCache: {
      get: async (id) => (id.href === keyId ? aliceKey : null),
      set: async () => {},
    },
    spec: 'draft-cavage-http-signatures-12',
  });
  return key?.id?.href === keyId;
}

describe('OutboundQueue', () => {
  it('has the worker sign and post each outbox message, Fedify handling none of them; other messages go to Fedify', async () => {
    received.length = 0;
    answer = 202;
    const kv = new MemoryKvStore();
    const queue = new OutboundQueue(new InProcessMessageQueue(), kv, { allowPrivateAddress: true });
    const messages = Array.from({ length: 20 }, (_, n) => outboxMessage(`${base}/inbox`, n));
    const inboxMessage = { type: 'inbox', id: 'x' };
    const toFedify = await handled(queue, [...messages, inboxMessage], (f) => received.length >= 20 && f.length >= 1);
    expect(toFedify).toEqual([inboxMessage]);
    expect(received.map((r) => JSON.parse(r.body).id).sort()).toEqual(messages.map((m) => m.activityId).sort());
    expect(await Promise.all(received.map(signedByAlice))).toEqual(received.map(() => true));
    expect(received[0].headers['content-type']).toBe('application/activity+json');
    // As Fedify's double knock: the spec the host took is remembered for it.
    expect(await kv.get(['_fedify', 'httpMessageSignaturesSpec', base])).toBe('draft-cavage-http-signatures-12');
  });

  it('leaves a host Fedify found wants RFC 9421 to Fedify (the worker signs draft-cavage only)', async () => {
    received.length = 0;
    answer = 202;
    const kv = new MemoryKvStore();
    await kv.set(['_fedify', 'httpMessageSignaturesSpec', base], 'rfc9421');
    const queue = new OutboundQueue(new InProcessMessageQueue(), kv, { allowPrivateAddress: true });
    const message = outboxMessage(`${base}/inbox`, 1);
    const toFedify = await handled(queue, [message], (f) => f.length >= 1);
    expect(toFedify).toEqual([message]);
    expect(received).toHaveLength(0);
  });

  it('hands Fedify every delivery the peer did not take (it retries, knocks again, counts failures)', async () => {
    received.length = 0;
    answer = 500;
    const queue = new OutboundQueue(new InProcessMessageQueue(), new MemoryKvStore(), { allowPrivateAddress: true });
    const message = outboxMessage(`${base}/inbox`, 1);
    const toFedify = await handled(queue, [message], (f) => f.length >= 1);
    expect(received).toHaveLength(1);
    expect(toFedify).toEqual([message]);
  });

  it('leaves a host with circuit-breaker state, and a held message, to Fedify', async () => {
    received.length = 0;
    answer = 202;
    const kv = new MemoryKvStore();
    await kv.set(['_fedify', 'circuit', `127.0.0.1:${port}`], { state: 'open', failures: [] });
    const queue = new OutboundQueue(new InProcessMessageQueue(), kv, { allowPrivateAddress: true });
    const held = { ...outboxMessage(`http://localhost:${port}/inbox`, 2), circuitHeld: true };
    const toFedify = await handled(queue, [outboxMessage(`${base}/inbox`, 1), held], (f) => f.length >= 2);
    expect(toFedify).toHaveLength(2);
    expect(received).toHaveLength(0);
  });

  it('gives up on a peer that never answers after the deadline, and hands the delivery to Fedify', async () => {
    const hung: http.ServerResponse[] = [];
    const silent = http.createServer((_req, res) => void hung.push(res));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const inbox = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/inbox`;
      const queue = new OutboundQueue(new InProcessMessageQueue(), new MemoryKvStore(), {
        allowPrivateAddress: true,
        timeoutMs: 300,
      });
      const message = outboxMessage(inbox, 1);
      const toFedify = await handled(queue, [message], (f) => f.length >= 1);
      expect(hung).toHaveLength(1);
      expect(toFedify).toEqual([message]);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('with the address guard on, the worker posts nothing to an inbox on loopback, by literal or by name', async () => {
    received.length = 0;
    answer = 202;
    const queue = new OutboundQueue(new InProcessMessageQueue(), new MemoryKvStore());
    const messages = [
      outboxMessage(`${base}/inbox`, 1),
      outboxMessage(`http://localhost:${port}/inbox`, 2),
      outboxMessage(`http://[::ffff:127.0.0.1]:${port}/inbox`, 3),
    ];
    const toFedify = await handled(queue, messages, (f) => f.length >= 3);
    expect(toFedify).toHaveLength(3);
    expect(received).toHaveLength(0);
  });
});

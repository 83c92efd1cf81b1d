import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signRequest } from '@fedify/fedify';
import { Create, Note } from '@fedify/vocab';
import type { TestInstance } from './test-network.ts';

/*
 * Clients for replaying inbox attacks against live test instances: signed and unsigned POSTs over a real
 * socket (a body held back, cut or never finished), and the signatures and activities they carry.
 */

/** A test instance listening on loopback, reached by port with its own Host. */
export interface Target {
  port: number;
  host: string;
}

export async function listen(instance: TestInstance): Promise<Target> {
  await instance.http.listen({ host: '127.0.0.1', port: 0 });
  return { port: (instance.http.server.address() as AddressInfo).port, host: instance.host };
}

export function signingKey(key: crypto.KeyObject): Promise<CryptoKey> {
  const der = key.export({ type: 'pkcs8', format: 'der' });
  return crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']);
}

/** The signing key of a local account of a test instance (as its server signs with). */
export function keyOf(instance: TestInstance, username: string): Promise<CryptoKey> {
  const store = instance.social.context.store;
  const account = store.accounts.byHandle(username, null)!;
  return signingKey(crypto.createPrivateKey(store.accounts.keyPair(account.id)!.privateKey!));
}

export async function strangerKey(): Promise<CryptoKey> {
  const pair = await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
  return pair.privateKey;
}

/** Headers of a draft-cavage signature (with Digest) of `body` posted to `url`, as Mastodon signs. */
export async function signedHeaders(
  url: string,
  body: string,
  key: CryptoKey,
  keyId: string,
  contentType = 'application/activity+json',
): Promise<Record<string, string>> {
  const request = await signRequest(
    new Request(url, { method: 'POST', headers: { 'content-type': contentType }, body }),
    key,
    new URL(keyId),
    { spec: 'draft-cavage-http-signatures-12' },
  );
  return Object.fromEntries(request.headers);
}

/** Headers signing `body` for `url` as a local account's server signs its deliveries. */
export async function signedBy(
  instance: TestInstance,
  username: string,
  url: string,
  body: string,
): Promise<Record<string, string>> {
  return signedHeaders(url, body, await keyOf(instance, username), `${instance.url}/users/${username}#main-key`);
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A POST over the socket. With `body` null, the headers announce `length` bytes that are never sent: an
 * answer proves the server did not wait for (read, parse) the body. `length` -1 sends the body chunked.
 */
export function rawPost(
  to: Target,
  path: string,
  headers: Record<string, string>,
  body: string | null,
  length?: number,
): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: to.port,
      method: 'POST',
      path,
      headers: {
        ...headers,
        host: to.host,
        ...(length === -1 ? {} : { 'content-length': String(body === null ? length : Buffer.byteLength(body)) }),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
    });
    if (body === null) req.flushHeaders();
    else req.end(body);
  });
}

/** A POST whose body never ends (a slow or vanished client); `abort` closes its connection. */
export function hangingPost(to: Target, path: string, headers: Record<string, string>): { abort: () => void } {
  const req = http.request({
    host: '127.0.0.1',
    port: to.port,
    method: 'POST',
    path,
    headers: { ...headers, host: to.host, 'content-length': '100000' },
  });
  req.on('error', () => {});
  req.write('{"type":');
  return { abort: () => req.destroy() };
}

/** A GET of an ActivityStreams document over the socket: its status. */
export function rawGet(to: Target, path: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port: to.port, path, headers: { host: to.host, accept: 'application/activity+json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      )
      .on('error', reject);
  });
}

let posts = 0;
/** A Create of a new post by `actor` (as JSON-LD), addressed to `to`, quoting `quote` if given. */
export async function createOf(actor: string, to: string, quote?: string): Promise<Record<string, any>> {
  const id = `${actor}/statuses/7${++posts}`;
  const create = new Create({
    id: new URL(`${id}/activity`),
    actor: new URL(actor),
    tos: [new URL(to)],
    object: new Note({
      id: new URL(id),
      attribution: new URL(actor),
      content: `<p>post ${posts}</p>`,
      tos: [new URL(to)],
      ...(quote ? { quoteUrl: new URL(quote) } : {}),
    }),
  });
  return (await create.toJsonLd({ format: 'compact' })) as Record<string, any>;
}

import crypto from 'node:crypto';
import { signRequest, verifyRequestDetailed } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import { verifiesLikeFedify } from './inbox-signature.ts';

/*
 * The worker's own check of a delivery's signature (inbox-signature.ts) against Fedify's verifyRequestDetailed on
 * the same request: it may leave a request to Fedify (false), but never accept one Fedify refuses; and it accepts
 * the deliveries Mastodon and Fedify sign (else it would save nothing).
 */

const KEY_ID = 'https://b.test/users/bob#main-key';
const URL_ = 'https://a.test/inbox';
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicCryptoKey = await crypto.subtle.importKey(
  'jwk',
  publicKey.export({ format: 'jwk' }),
  { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  true,
  ['verify'],
);
const BODY = JSON.stringify({ type: 'Create', actor: 'https://b.test/users/bob', n: 1 });

interface Parts {
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer>;
}

const sha = (algorithm: string, body: string) => crypto.createHash(algorithm).update(body).digest('base64');

/** A draft-cavage signature made here, with what a variant changes. */
function signed(
  options: {
    body?: string;
    digest?: string;
    date?: Date;
    names?: string[];
    params?: string;
    keyId?: string;
    key?: crypto.KeyObject;
    host?: string;
    extra?: [string, string][];
  } = {},
): Parts {
  const body = options.body ?? BODY;
  const values: Record<string, string> = {
    host: options.host ?? 'a.test',
    date: (options.date ?? new Date()).toUTCString(),
    digest: options.digest ?? `SHA-256=${sha('sha256', body)}`,
    'content-type': 'application/activity+json',
  };
  const names = options.names ?? ['(request-target)', 'host', 'date', 'digest', 'content-type'];
  const text = names
    .map((n) => `${n}: ${n === '(request-target)' ? 'post /inbox' : (values[n.toLowerCase()] ?? '')}`)
    .join('\n');
  const signature = crypto.sign('sha256', Buffer.from(text), options.key ?? privateKey).toString('base64');
  const header = `keyId="${options.keyId ?? KEY_ID}",algorithm="rsa-sha256",headers="${names.join(' ')}"${options.params ?? ''},signature="${signature}"`;
  return {
    url: URL_,
    method: 'POST',
    headers: [...Object.entries(values), ['signature', header], ...(options.extra ?? [])],
    body: new Uint8Array(Buffer.from(body)),
  };
}

async function fedifyVerifies(parts: Parts): Promise<boolean> {
  const request = new Request(parts.url, { method: parts.method, headers: parts.headers, body: parts.body });
  const refuse = (url: string) => Promise.reject(new Error(`not fetched: ${url}`));
  const { CryptographicKey } = await import('@fedify/vocab');
  const key = new CryptographicKey({
    id: new URL(KEY_ID),
    owner: new URL('https://b.test/users/bob'),
    publicKey: publicCryptoKey,
  });
  const result = await verifyRequestDetailed(request, {
    documentLoader: refuse,
    contextLoader: refuse,
    timeWindow: { hours: 1 },
    keyCache: { get: async (id) => (id.href === KEY_ID ? key : undefined), set: async () => {} },
  });
  return result.verified;
}

const quick = (parts: Parts) => verifiesLikeFedify({ ...parts, key: { id: KEY_ID } }, publicKey, crypto, Date.now());

describe("the verifier worker's signature check", () => {
  it('accepts what Fedify signs and what Mastodon signs', async () => {
    const byFedify = await signRequest(
      new Request(URL_, { method: 'POST', body: BODY, headers: { 'content-type': 'application/activity+json' } }),
      (await crypto.subtle.importKey(
        'pkcs8',
        privateKey.export({ type: 'pkcs8', format: 'der' }),
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        true,
        ['sign'],
      )) as CryptoKey,
      new URL(KEY_ID),
      { spec: 'draft-cavage-http-signatures-12' },
    );
    const fedifySigned: Parts = {
      url: URL_,
      method: 'POST',
      headers: [...byFedify.headers],
      body: new Uint8Array(Buffer.from(BODY)),
    };
    for (const parts of [fedifySigned, signed()]) {
      expect(quick(parts)).toBe(true);
      expect(await fedifyVerifies(parts)).toBe(true);
    }
  });

  it('never accepts what Fedify refuses, and leaves the uncommon shapes to it', async () => {
    const hour = 60 * 60 * 1000;
    const valid = signed();
    const variants: Record<string, Parts> = {
      'body changed after signing': { ...valid, body: new Uint8Array(Buffer.from(`${BODY} `)) },
      'path changed': { ...valid, url: 'https://a.test/users/alice/inbox' },
      'method changed': { ...valid, method: 'PUT' },
      'Date two hours old': signed({ date: new Date(Date.now() - 2 * hour) }),
      'Date two hours ahead': signed({ date: new Date(Date.now() + 2 * hour) }),
      'digest not signed': signed({ names: ['(request-target)', 'host', 'date'] }),
      'date not signed': signed({ names: ['(request-target)', 'host', 'digest'] }),
      'target not signed': signed({ names: ['host', 'date', 'digest'] }),
      'another key': signed({ key: other.privateKey }),
      'another keyId': signed({ keyId: 'https://b.test/users/bob#other-key' }),
      'a Digest of another body': signed({ digest: `SHA-256=${sha('sha256', 'other')}` }),
      'a SHA-512 Digest': signed({ digest: `SHA-512=${sha('sha512', BODY)}` }),
      'two digests': signed({ digest: `SHA-256=${sha('sha256', BODY)},SHA-512=${sha('sha512', BODY)}` }),
      'a created parameter': signed({ params: `,created=${Math.floor(Date.now() / 1000)}` }),
      'an expired signature': signed({ params: `,expires=${Math.floor(Date.now() / 1000) - 10}` }),
      'a signed header missing': signed({ names: ['(request-target)', 'host', 'date', 'digest', 'accept'] }),
      'another host signed': signed({ host: 'elsewhere.test' }),
      'an RFC 9421 signature too': signed({ extra: [['signature-input', 'sig1=("@method");keyid="x"']] }),
      'a signature tampered': (() => {
        const parts = signed();
        parts.headers = parts.headers.map(([n, v]) => [
          n,
          n === 'signature' ? v.replace(/signature="../, 'signature="AA') : v,
        ]);
        return parts;
      })(),
    };
    const verdicts: Record<string, [boolean, boolean]> = {};
    for (const [name, parts] of Object.entries(variants)) verdicts[name] = [quick(parts), await fedifyVerifies(parts)];
    for (const [name, [mine, fedify]] of Object.entries(verdicts)) if (mine) expect(fedify, name).toBe(true);
    // Refused by both: the checks this one makes itself.
    for (const name of [
      'body changed after signing',
      'path changed',
      'method changed',
      'Date two hours old',
      'Date two hours ahead',
      'digest not signed',
      'date not signed',
      'target not signed',
      'another key',
      'a Digest of another body',
      'a signature tampered',
    ])
      expect(verdicts[name], name).toEqual([false, false]);
  });
});

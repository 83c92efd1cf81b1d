import type { KeyObject } from 'node:crypto';

/** A signed request as the verifier's worker gets it (see VerifierJob). */
export interface SignedRequestParts {
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array;
  key: { id: string };
}

/**
 * The draft-cavage HTTP signature of a delivery, checked as Fedify's verifyRequestDetailed checks it (the signed
 * string it builds, the Digest of the body, the Date within an hour, the key named by keyId) with node:crypto:
 * Fedify's check costs about 0.5 ms of CPU here, of which the RSA verification and the SHA-256 digest are about
 * 0.06 (the rest: a Web Request and its clone, Temporal dates, tracing spans, WebCrypto's promise jobs). True only
 * when every one of those checks passes in the one common shape (one SHA-256 digest, no created or expires
 * parameter, every signed header present): anything else answers false and Fedify's verification decides, so
 * this never accepts what Fedify refuses. Self-contained: the verifier's worker evaluates its source.
 */
export function verifiesLikeFedify(
  request: SignedRequestParts,
  publicKey: KeyObject,
  nodeCrypto: typeof import('node:crypto'),
  nowMs: number,
): boolean {
  const WINDOW_MS = 60 * 60 * 1000;
  const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
  const headers = new Map<string, string>();
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    // As the Headers class answers get(): repeated headers joined.
    headers.set(lower, headers.has(lower) ? `${headers.get(lower)}, ${value}` : value);
  }
  const header = headers.get('signature');
  if (header === undefined || headers.has('signature-input')) return false;
  const params = new Map<string, string>();
  for (const pair of header.split(',')) {
    const m = /^\s*([A-Za-z]+)=(?:"([^"]*)"|(\d+))\s*$/.exec(pair);
    if (m) params.set(m[1], m[2] ?? m[3]);
  }
  const keyId = params.get('keyId');
  const signed = params.get('headers');
  const signature = params.get('signature');
  if (keyId === undefined || signed === undefined || signature === undefined) return false;
  if (params.has('created') || params.has('expires')) return false;
  if (!URL.canParse(keyId) || new URL(keyId).href !== request.key.id) return false;
  const date = Date.parse(headers.get('date') ?? '');
  if (!Number.isFinite(date) || date > nowMs + WINDOW_MS || date < nowMs - WINDOW_MS) return false;
  const digest = /^\s*sha-256=(.*)$/i.exec(headers.get('digest') ?? '')?.[1];
  if (digest === undefined || digest.includes(',') || !BASE64.test(digest)) return false;
  const bodyDigest = nodeCrypto.createHash('sha256').update(request.body).digest();
  if (!nodeCrypto.timingSafeEqual(Buffer.from(digest, 'base64'), bodyDigest)) return false;
  const names = signed.split(/\s+/g);
  if (!names.includes('(request-target)') || !names.includes('date') || !names.includes('digest')) return false;
  const url = new URL(request.url);
  const lines: string[] = [];
  for (const name of names) {
    if (name === '(request-target)') lines.push(`${name}: ${request.method.toLowerCase()} ${url.pathname}`);
    else if (name === 'host') lines.push(`${name}: ${headers.get('host') ?? url.host}`);
    else {
      const value = headers.get(name.toLowerCase());
      if (value === undefined) return false;
      lines.push(`${name}: ${value}`);
    }
  }
  if (!BASE64.test(signature)) return false;
  return nodeCrypto.verify(
    'sha256',
    Buffer.from(lines.join('\n'), 'utf8'),
    publicKey,
    Buffer.from(signature, 'base64'),
  );
}

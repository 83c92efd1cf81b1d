/** What bench:federation's phases share: loopback peer servers that check signatures, CPU by thread, profiles. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';

export interface Peer {
  port: number;
  server: http.Server;
  received: number;
  rejected: number;
}

/** Checks a draft-cavage signature (rsa-sha256 over the listed headers) and the SHA-256 Digest of the body. */
function verifyCavage(req: http.IncomingMessage, body: Buffer, publicKey: crypto.KeyObject): boolean {
  const header = String(req.headers.signature ?? '');
  const params = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  if (!params.headers || !params.signature) return false;
  const digest = `SHA-256=${crypto.createHash('sha256').update(body).digest('base64')}`;
  if (req.headers.digest !== digest) return false;
  const signed = params.headers
    .split(' ')
    .map((h) =>
      h === '(request-target)'
        ? `(request-target): ${req.method!.toLowerCase()} ${req.url}`
        : `${h}: ${req.headers[h]}`,
    )
    .join('\n');
  return crypto.verify('sha256', Buffer.from(signed), publicKey, Buffer.from(params.signature, 'base64'));
}

export async function startPeer(publicKey: () => crypto.KeyObject, actorDoc?: (port: number) => object): Promise<Peer> {
  const peer: Peer = { port: 0, server: http.createServer(), received: 0, rejected: 0 };
  peer.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && actorDoc) {
        res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actorDoc(peer.port)));
        return;
      }
      const ok = verifyCavage(req, Buffer.concat(chunks), publicKey());
      if (ok) peer.received++;
      else peer.rejected++;
      res.writeHead(ok ? 202 : 401).end();
    });
  });
  await new Promise<void>((r) => peer.server.listen(0, '127.0.0.1', r));
  peer.port = (peer.server.address() as AddressInfo).port;
  return peer;
}

/**
 * CPU seconds used so far by this process's threads, by thread id with its name (Linux /proc): the main thread
 * apart from libuv's pool (WebCrypto signing, digests), V8's helpers (GC) and worker threads, since only the
 * main thread is the limit.
 */
export function threadCpu(): Map<string, { name: string; seconds: number }> {
  const byTid = new Map<string, { name: string; seconds: number }>();
  const tick = 100; // USER_HZ
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byTid.set(tid, { name, seconds: (Number(fields[11]) + Number(fields[12])) / tick });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byTid;
}

/**
 * µs per operation by thread name since `before`; threads started meanwhile count as 'new thread' (the
 * delivery worker, which Node names 'node' as it does V8's helpers). A thread that ended meanwhile is missed.
 */
export function threadCpuSince(before: Map<string, { name: string; seconds: number }>, per: number): string {
  const byName = new Map<string, number>();
  for (const [tid, { name, seconds }] of threadCpu()) {
    const earlier = before.get(tid);
    const label = earlier ? name : 'new thread';
    byName.set(label, (byName.get(label) ?? 0) + seconds - (earlier?.seconds ?? 0));
  }
  return [...byName]
    .map(([name, s]) => [name, (s * 1e6) / per] as const)
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => `${name} ${us.toFixed(0)}`)
    .join(', ');
}

/** OUTBOUND_PROFILE / INBOUND_PROFILE=file.cpuprofile: a V8 CPU profile of this process during that phase only. */
export async function startProfile(file: string | undefined): Promise<() => Promise<void>> {
  if (!file) return async () => {};
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

export async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

/** A private key as the Web Crypto key Fedify's signRequest takes (extractable: Fedify reads its algorithm back). */
export function signingKey(privateKey: crypto.KeyObject): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    'pkcs8',
    privateKey.export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    true,
    ['sign'],
  );
}

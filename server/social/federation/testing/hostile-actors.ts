import crypto from 'node:crypto';
import type http from 'node:http';
import { signRequest } from '@fedify/fedify';

/*
 * The hostile server's accounts, which sign what they send as a real server's do: their documents (one RSA key
 * pair per process, each actor its own key id) and pages of the test's choosing, served by `handler` (hand it
 * to startHostilePeer as its fallback), and activities posted to an inbox with a draft-cavage signature and
 * Digest, as Mastodon signs them.
 */

export type { Json } from './activities.ts';
import type { Json } from './activities.ts';

export interface HostileActors {
  /** The id of the actor `name` on `origin`, served from now on with `extra` in its document (icon, image…). */
  actor(name: string, extra?: Json): string;
  /** Serves `body` at `path`. */
  page(path: string, contentType: string, body: string | Buffer): void;
  /** Takes requests to `path` and never answers them (an inbox that hangs); see `hung`. */
  hang(path: string): void;
  /** Requests to hanging paths, and whether the client gave up on them (closed the connection). */
  hung: { path: string; closed: boolean }[];
  handler: http.RequestListener;
  /** `activity` signed by its actor, ready to post to `inbox` (sign ahead, send at once: a flood). */
  signed(inbox: string, activity: Json): Promise<Request>;
}

const RSA_SIGNING = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

export function hostileActors(origin: string): HostileActors {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  // Fedify's signRequest takes extractable keys only.
  const signingKey = crypto.subtle.importKey('pkcs8', der, RSA_SIGNING, true, ['sign']);
  const documents = new Map<string, { contentType: string; body: string | Buffer }>();
  const hanging = new Set<string>();
  const hung: { path: string; closed: boolean }[] = [];
  const json = (document: Json) => ({ contentType: 'application/activity+json', body: JSON.stringify(document) });

  return {
    actor(name, extra = {}) {
      const id = `${origin}/users/${name}`;
      const document = {
        '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
        id,
        type: 'Person',
        preferredUsername: name,
        inbox: `${id}/inbox`,
        outbox: `${id}/outbox`,
        followers: `${id}/followers`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
        ...extra,
      };
      documents.set(new URL(id).pathname, json(document));
      const host = new URL(origin).host;
      documents.set(
        `/.well-known/webfinger?resource=${encodeURIComponent(`acct:${name}@${host}`)}`,
        json({
          subject: `acct:${name}@${host}`,
          links: [{ rel: 'self', type: 'application/activity+json', href: id }],
        }),
      );
      return id;
    },
    page(path, contentType, body) {
      documents.set(path, { contentType, body });
    },
    hang(path) {
      hanging.add(path);
    },
    hung,
    handler(req, res) {
      if (hanging.has(req.url ?? '')) {
        const request = { path: req.url ?? '', closed: false };
        hung.push(request);
        req.resume();
        res.on('close', () => (request.closed = true));
        return;
      }
      const found = documents.get(req.url ?? '') ?? documents.get(new URL(req.url ?? '/', origin).pathname);
      if (!found || req.method !== 'GET') return void res.writeHead(404, { 'content-type': 'text/plain' }).end();
      res.writeHead(200, { 'content-type': found.contentType }).end(found.body);
    },
    async signed(inbox, activity) {
      const request = new Request(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(activity),
      });
      const actor = typeof activity.actor === 'string' ? activity.actor : activity.actor.id;
      return signRequest(request, await signingKey, new URL(`${actor}#main-key`), {
        spec: 'draft-cavage-http-signatures-12',
      });
    },
  };
}

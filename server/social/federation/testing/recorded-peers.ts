import fs from 'node:fs';
import { signRequest } from '@fedify/fedify';
import { preloadedContexts } from '@fedify/vocab-runtime';
import { contextLoaderFactory } from '../loaders.ts';
import { fixturePath } from '../../testing/fixtures.ts';
import type { TestNetwork } from './test-network.ts';

/*
 * The senders of recorded payloads (soapbox-pub/rebased's corpus of Mastodon, Misskey, Pleroma, PeerTube,
 * Hubzilla… activities), stood up at their own host names in a test network: each actor's document from the
 * corpus (or, where the corpus has none, a plain Person), served with a key pair made here; the payload
 * posted to an inbox with a real draft-cavage signature and Digest, as Mastodon sends it; and what the
 * Homeport under test sends back (Accepts, Follows) recorded, with Follows accepted as a server would.
 */

export type { Json } from './activities.ts';
import type { Json } from './activities.ts';

/** A payload of the corpus, read at test time (the corpus stays outside the repository). */
export function readFixture(name: string): Json {
  return JSON.parse(fs.readFileSync(fixturePath('activitypub-rebased', name), 'utf8')) as Json;
}

/** Every string of a document with each key of `replacements` replaced by its value (ids, links in content, handles). */
export function rewrite<T>(json: T, replacements: Record<string, string>): T {
  const replace = (value: unknown): unknown => {
    if (typeof value === 'string')
      return Object.entries(replacements).reduce((s, [from, to]) => s.split(from).join(to), value);
    if (Array.isArray(value)) return value.map(replace);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
    return value;
  };
  return replace(json) as T;
}

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
} as const;

async function generateKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
}

async function publicKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('spki', key)).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

export interface PeerActor {
  id: string;
  keyId: string;
  privateKey: CryptoKey;
  document: Json;
}

const withoutFragment = (url: string) => url.split('#')[0];

export class RecordedPeers {
  /** Activities the server under test posted to the peers, in order. */
  readonly received: { url: string; activity: Json }[] = [];
  /** URLs the server under test fetched from the peers, in order. */
  readonly requested: string[] = [];
  private readonly net: TestNetwork;
  private readonly documents = new Map<string, Json>();
  private readonly actors = new Map<string, PeerActor>();
  private readonly contexts = new Set<string>();
  private readonly hosts = new Set<string>();
  private acceptCount = 0;

  constructor(net: TestNetwork) {
    this.net = net;
  }

  /**
   * Serves an actor with a key pair made here: the corpus's document for it (a file, or one found inside a
   * payload), its key replaced, or a plain Person when the corpus has none.
   */
  async actor(id: string, source?: string | Json): Promise<PeerActor> {
    const known = this.actors.get(id);
    if (known) return known;
    const keys = await generateKeys();
    const base = typeof source === 'string' ? readFixture(source) : (source ?? plainPerson(id));
    if (base.id !== id) throw new Error(`the document given for ${id} is that of ${base.id}`);
    const keyId = typeof base.publicKey?.id === 'string' ? base.publicKey.id : `${id}#main-key`;
    const document = { ...base, publicKey: { id: keyId, owner: id, publicKeyPem: await publicKeyPem(keys.publicKey) } };
    const actor = { id, keyId, privateKey: keys.privateKey, document };
    this.actors.set(id, actor);
    this.serve(document);
    // Hubzilla's key has an address of its own (…/public_key_pem): the actor holding it answers there too.
    this.documents.set(withoutFragment(keyId), document);
    return actor;
  }

  /** Serves a document at its id (a post that a reply, a boost or a fetch refers to). */
  serve(document: Json): void {
    this.documents.set(withoutFragment(document.id), document);
    this.listen(new URL(document.id).host);
    this.serveContexts(document);
  }

  /**
   * Posts an activity to an inbox, signed by its actor (draft-cavage with Digest, as Mastodon signs), unsigned,
   * or signed by a key that is not the actor's.
   */
  async deliver(inbox: string, activity: Json, signature: 'actor' | 'none' | 'stranger' = 'actor'): Promise<Response> {
    this.serveContexts(activity);
    const request = new Request(inbox, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify(activity),
    });
    if (signature === 'none') return fetch(request);
    const actorId = typeof activity.actor === 'string' ? activity.actor : activity.actor.id;
    const actor = this.actors.get(actorId);
    if (!actor) throw new Error(`no served actor ${actorId}`);
    const key = signature === 'actor' ? actor.privateKey : (await generateKeys()).privateKey;
    return fetch(await signRequest(request, key, new URL(actor.keyId), { spec: 'draft-cavage-http-signatures-12' }));
  }

  /** JSON-LD contexts a payload names on its sender's server are served as the server under test reads them offline. */
  private serveContexts(document: Json): void {
    const context = document['@context'];
    for (const url of (Array.isArray(context) ? context : [context]).filter(
      (c): c is string => typeof c === 'string',
    )) {
      if (url in preloadedContexts || !/^https?:\/\//.test(url)) continue;
      this.contexts.add(url);
      this.listen(new URL(url).host);
    }
  }

  private listen(host: string): void {
    if (this.hosts.has(host)) return;
    this.hosts.add(host);
    this.net.addRemote(host, (request) => this.answer(request));
  }

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === 'POST') {
      const activity = (await request.json()) as Json;
      this.received.push({ url: request.url, activity });
      if (activity.type === 'Follow') setTimeout(() => void this.accept(activity), 0);
      return new Response(null, { status: 202 });
    }
    this.requested.push(request.url);
    if (url.pathname === '/.well-known/webfinger') return this.webfinger(url.searchParams.get('resource') ?? '');
    if (this.contexts.has(request.url)) {
      const { document } = await contextLoaderFactory()(request.url);
      return Response.json(document, { headers: { 'content-type': 'application/ld+json' } });
    }
    const document = this.documents.get(withoutFragment(request.url));
    if (!document) return new Response('not found', { status: 404 });
    return new Response(JSON.stringify(document), { headers: { 'content-type': 'application/activity+json' } });
  }

  private webfinger(resource: string): Response {
    const match = /^acct:([^@]+)@(.+)$/.exec(resource);
    const actor = match
      ? [...this.actors.values()].find(
          (a) => a.document.preferredUsername === match[1] && new URL(a.id).host === match[2],
        )
      : undefined;
    if (!actor) return new Response('not found', { status: 404 });
    return Response.json(
      { subject: resource, links: [{ rel: 'self', type: 'application/activity+json', href: actor.id }] },
      { headers: { 'content-type': 'application/jrd+json' } },
    );
  }

  /** A Follow of one of the peers' actors is accepted, as an unlocked account's server does. */
  private async accept(follow: Json): Promise<void> {
    const followee = this.actors.get(typeof follow.object === 'string' ? follow.object : follow.object?.id);
    if (!followee) return;
    const follower = (await (
      await fetch(follow.actor, { headers: { accept: 'application/activity+json' } })
    ).json()) as Json;
    const accept = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${followee.id}#accepts/follows/${++this.acceptCount}`,
      type: 'Accept',
      actor: followee.id,
      object: follow,
    };
    await this.deliver(follower.inbox, accept);
  }
}

/** An actor the corpus has no document for: the fields every server needs to follow and verify one. */
function plainPerson(id: string): Json {
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id,
    type: 'Person',
    preferredUsername: new URL(id).pathname.split('/').filter(Boolean).pop(),
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
  };
}

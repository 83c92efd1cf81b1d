import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNetwork, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/* What a peer sees of a Homeport before and while following: WebFinger, host-meta, NodeInfo, actors, objects. */

let net: TestNetwork;
let a: TestInstance;
let alice: Awaited<ReturnType<TestInstance['createUser']>>;
const AP = 'application/activity+json';
/** Fedify writes the public collection in its compact form, which Mastodon reads as well (federation.md §1.5). */
const PUBLIC = 'as:Public';

/** JSON-LD compaction writes a one-element list as the element itself. */
function list(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

async function json(url: string, accept = AP): Promise<{ status: number; type: string | null; body: any }> {
  const res = await fetch(url, { headers: { accept } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, type: res.headers.get('content-type'), body };
}

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  alice = await a.createUser('alice');
  await alice.client.v1.accounts.updateCredentials({
    displayName: 'Alice A.',
    note: 'Sails #boats',
    fieldsAttributes: [{ name: 'Site', value: 'https://alice.example' }],
    discoverable: true,
    // masto.js does not know `indexable` yet; the server does.
    ...({ indexable: true } as object),
  });
});
afterAll(async () => {
  await net?.close();
});

describe('discovery', () => {
  it('answers WebFinger for acct: and actor URLs, 404 for unknown users; host-meta gives the template', async () => {
    const wf = await json('https://a.test/.well-known/webfinger?resource=acct:alice@a.test', 'application/jrd+json');
    expect(wf.status).toBe(200);
    expect(wf.body.subject).toBe('acct:alice@a.test');
    expect(wf.body.links).toContainEqual(
      expect.objectContaining({ rel: 'self', type: AP, href: 'https://a.test/users/alice' }),
    );
    expect(wf.body.links).toContainEqual(
      expect.objectContaining({ rel: 'http://webfinger.net/rel/profile-page', href: 'https://a.test/@alice' }),
    );
    const byUrl = await json(
      'https://a.test/.well-known/webfinger?resource=https://a.test/users/alice',
      'application/jrd+json',
    );
    expect(byUrl.body.aliases).toContain('acct:alice@a.test');
    expect(byUrl.body.links).toContainEqual(
      expect.objectContaining({ rel: 'self', href: 'https://a.test/users/alice' }),
    );
    expect((await json('https://a.test/.well-known/webfinger?resource=acct:nobody@a.test')).status).toBe(404);
    const hostMeta = await fetch('https://a.test/.well-known/host-meta');
    expect(hostMeta.headers.get('content-type')).toContain('application/xrd+xml');
    expect(await hostMeta.text()).toContain('template="https://a.test/.well-known/webfinger?resource={uri}"');
  });

  it('publishes NodeInfo 2.0 and 2.1 with real usage figures', async () => {
    const links = (await json('https://a.test/.well-known/nodeinfo', 'application/json')).body.links as {
      rel: string;
      href: string;
    }[];
    expect(links.map((l) => l.href)).toEqual(['https://a.test/nodeinfo/2.0', 'https://a.test/nodeinfo/2.1']);
    await alice.client.v1.statuses.create({ status: 'counted' });
    const info = (await json('https://a.test/nodeinfo/2.1', 'application/json')).body;
    expect(info).toMatchObject({
      version: '2.1',
      software: { name: 'homeport' },
      protocols: ['activitypub'],
      usage: { users: { total: 1 }, localPosts: 1 },
    });
  });

  it('serves the actor as Mastodon expects it, on the actor id and (negotiated) on the profile URL', async () => {
    const actor = await json('https://a.test/users/alice');
    expect(actor.status).toBe(200);
    expect(actor.type).toContain('application/activity+json');
    expect(actor.body).toMatchObject({
      id: 'https://a.test/users/alice',
      type: 'Person',
      preferredUsername: 'alice',
      name: 'Alice A.',
      url: 'https://a.test/@alice',
      inbox: 'https://a.test/users/alice/inbox',
      outbox: 'https://a.test/users/alice/outbox',
      followers: 'https://a.test/users/alice/followers',
      following: 'https://a.test/users/alice/following',
      featured: 'https://a.test/users/alice/collections/featured',
      endpoints: { sharedInbox: 'https://a.test/inbox' },
      manuallyApprovesFollowers: false,
      discoverable: true,
      indexable: true,
      publicKey: {
        id: 'https://a.test/users/alice#main-key',
        owner: 'https://a.test/users/alice',
        publicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY'),
      },
    });
    expect(actor.body.summary).toContain('href="https://a.test/tags/boats"');
    expect(list(actor.body.attachment)).toContainEqual(
      expect.objectContaining({ type: 'PropertyValue', name: 'Site' }),
    );
    const negotiated = await json('https://a.test/@alice');
    expect(negotiated.body.id).toBe('https://a.test/users/alice');
    const html = await fetch('https://a.test/@alice', { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain(
      '<link rel="alternate" type="application/activity+json" href="https://a.test/users/alice">',
    );
    expect((await json('https://a.test/users/nobody')).status).toBe(404);
    const instance = await json('https://a.test/actor');
    expect(instance.body).toMatchObject({
      type: 'Application',
      preferredUsername: 'a.test',
      manuallyApprovesFollowers: true,
    });
  });

  it('honours hidden collections: followers show a count and no one', async () => {
    const visible = await json('https://a.test/users/alice/followers');
    expect(visible.body).toMatchObject({ type: 'OrderedCollection', totalItems: 0 });
    await alice.client.v1.accounts.updateCredentials({ hideCollections: true });
    const hidden = await json('https://a.test/users/alice/followers');
    expect(hidden.body.totalItems).toBe(0);
    expect(hidden.body.orderedItems ?? []).toEqual([]);
  });

  it('serves statuses with Mastodon’s addressing per visibility; followers-only ones not to anonymous requests', async () => {
    const followers = 'https://a.test/users/alice/followers';
    const pub = await alice.client.v1.statuses.create({
      status: 'public #news',
      visibility: 'public',
      language: 'en',
      spoilerText: 'cw',
    });
    const unlisted = await alice.client.v1.statuses.create({ status: 'quiet', visibility: 'unlisted' });
    const priv = await alice.client.v1.statuses.create({ status: 'friends', visibility: 'private' });
    const note = (await json(pub.uri)).body;
    expect(note).toMatchObject({
      type: 'Note',
      id: pub.uri,
      attributedTo: 'https://a.test/users/alice',
      summary: 'cw',
      sensitive: true,
    });
    expect([list(note.to), list(note.cc)]).toEqual([[PUBLIC], [followers]]);
    expect(note.contentMap).toEqual({ en: expect.stringContaining('public') });
    expect(list(note.tag)).toContainEqual(expect.objectContaining({ type: 'Hashtag', name: '#news' }));
    const quiet = (await json(unlisted.uri)).body;
    expect([list(quiet.to), list(quiet.cc)]).toEqual([[followers], [PUBLIC]]);
    expect((await json(priv.uri)).status).toBe(404);
    // The status URL answers with the object when asked for ActivityStreams.
    expect((await json(pub.url!)).body.id).toBe(pub.uri);
    const outbox = await json('https://a.test/users/alice/outbox');
    expect(outbox.body.totalItems).toBe(4);
  });
});

import { MemoryKvStore } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeRemoteHtml } from './html.ts';
import { handlePlainCreate, plainCreatesHandled } from './inbox-plain-listener.ts';
import { RecordedPeers, type Json } from './testing/recorded-peers.ts';
import {
  createTestNetwork,
  eventually,
  type NetworkUser,
  type TestInstance,
  type TestNetwork,
} from './testing/test-network.ts';

/*
 * Checks of the inbox that only a forged or refused activity exercises: a signed Delete of someone else's post,
 * and a report (Flag) from a domain whose reports are refused. Each activity is posted with a valid signature
 * of its actor; the inbox handles it from its queue, so every assertion waits until that queue is empty (the
 * activity handled) and sets beside it an allowed activity that does take effect.
 */

const HOME = 'https://home.test';
const INBOX = `${HOME}/inbox`;
const LAIN = `${HOME}/users/lain`;
const ALICE = 'https://alice.example/users/alice';
const MALLORY = 'https://mallory.example/users/mallory';
const CAROL = 'https://carol.example/users/carol';
const DAVE = 'https://dave.example/users/dave';
const EVE = 'https://eve.example/users/eve';
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

let net: TestNetwork;
let home: TestInstance;
let lain: NetworkUser;
let peers: RecordedPeers;
let serial = 0;

beforeAll(async () => {
  net = createTestNetwork();
  home = await net.add('home.test');
  lain = await home.createUser('lain');
  peers = new RecordedPeers(net);
  for (const actor of [ALICE, MALLORY, CAROL, DAVE, EVE]) await peers.actor(actor);
});

afterAll(async () => {
  await net?.close();
});

async function deliver(activity: Json): Promise<void> {
  const res = await peers.deliver(INBOX, activity);
  expect(res.status, await res.clone().text()).toBe(202);
}

/** Resolves once every activity delivered so far has been handled (a queued message leaves the table when done). */
async function handled(): Promise<void> {
  const queued = home.social.context.store.db.prepare('SELECT COUNT(*) AS n FROM federation_queue');
  await eventually(() => Number((queued.get() as { n: bigint }).n) === 0, 'the inbox queue empty');
}

/** A public Create by `actor` of a Note mentioning lain (a private mention from a stranger would be filtered). */
function mentionOf(actor: string, text: string, id = `${actor}/statuses/${++serial}`): Json {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: [PUBLIC],
    cc: [LAIN],
    object: {
      id,
      type: 'Note',
      attributedTo: actor,
      to: [PUBLIC],
      cc: [LAIN],
      content: `<p>@lain ${text}</p>`,
      tag: [{ type: 'Mention', href: LAIN, name: '@lain@home.test' }],
      published: new Date().toISOString(),
    },
  };
}

/** Delivers mentionOf(actor, text); returns the Note's id. */
async function mentionLain(actor: string, text: string): Promise<string> {
  const create = mentionOf(actor, text);
  await deliver(create);
  return create.object.id;
}

const stored = (uri: string) =>
  home.social.context.store.db.prepare('SELECT id FROM statuses WHERE uri = ?').get(uri) !== undefined;

/** The id here of a remote post that mentioned lain, once its notification is there. */
async function mentionedStatus(uri: string): Promise<string> {
  const notification = await eventually(
    async () =>
      (await lain.client.v1.notifications.list({ types: ['mention'], limit: 40 })).find((n) => n.status?.uri === uri),
    `the mention of ${uri}`,
  );
  return notification.status!.id;
}

/** A domain block made here; returns its id. */
function blockDomain(domain: string, severity: 'noop' | 'suspend', rejectReports: boolean): string {
  const made = home.social.context.moderation.blockDomain({
    domain,
    severity,
    rejectMedia: false,
    rejectReports,
    privateComment: null,
    publicComment: null,
    obfuscate: false,
  });
  if (!('created' in made)) throw new Error('the domain block was refused');
  return made.created.id;
}

function deleteOf(actor: string, object: string): Json {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${actor}#delete-${++serial}`,
    type: 'Delete',
    actor,
    to: [PUBLIC],
    object: { id: object, type: 'Tombstone' },
  };
}

describe('inbox checks', () => {
  it('a signed Delete from a known remote actor leaves another author’s post alone; its author’s Delete removes it', async () => {
    const post = await mentionLain(ALICE, 'a post of alice’s');
    const statusId = await mentionedStatus(post);
    // Mallory is known here (she posted too), and signs her Delete with her own key: only the origin check stops it.
    await mentionedStatus(await mentionLain(MALLORY, 'hello from mallory'));
    await deliver(deleteOf(MALLORY, post));
    await handled();
    expect((await lain.client.v1.statuses.$select(statusId).fetch()).uri).toBe(post);

    await deliver(deleteOf(ALICE, post));
    await handled();
    await expect(lain.client.v1.statuses.$select(statusId).fetch()).rejects.toThrow(/not found/i);
  });

  it('a report (Flag) from a domain whose reports are refused is dropped; one from elsewhere is received', async () => {
    blockDomain('mallory.example', 'noop', true);
    const flag = (actor: string): Json => ({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${actor}#flag-${++serial}`,
      type: 'Flag',
      actor,
      object: [LAIN],
      content: `a report from ${actor}`,
    });
    await deliver(flag(MALLORY));
    await deliver(flag(CAROL));
    await handled();
    const store = home.social.context.store;
    const reporters = store.reports
      .list({ resolved: false, targetAccountId: lain.accountId }, { limit: 40 })
      .map((r) => store.accounts.byId(r.accountId)?.uri);
    expect(reporters).toEqual([CAROL]);
  });
});

/*
 * The checks of a plain Create's listener (inbox-plain-listener.ts: the verifier worker read the Create, Fedify's
 * objects are not built): each activity is counted as handled there, and each refused one is set beside one that
 * is stored.
 */
describe('plain Creates, handled without Fedify reading them', () => {
  /** Delivers `activities` and waits until they are handled; returns how many the plain listener took. */
  async function deliverPlain(...activities: Json[]): Promise<number> {
    const before = plainCreatesHandled.count;
    for (const activity of activities) await deliver(activity);
    await handled();
    return plainCreatesHandled.count - before;
  }

  it('stores each activity once: a second Create with the same activity id is dropped (Fedify’s mark)', async () => {
    const first = mentionOf(ALICE, 'first');
    const again: Json = { ...mentionOf(ALICE, 'second'), id: first.id };
    expect(await deliverPlain(first, again)).toBe(2);
    expect([stored(first.object.id), stored(again.object.id)]).toEqual([true, false]);
  });

  it("refuses a note attributed to someone else than the sender, or on another server than the sender's", async () => {
    const forged = mentionOf(ALICE, 'by carol?');
    forged.object.attributedTo = CAROL;
    // The Create and its note on carol's server, sent and signed by alice.
    const elsewhere = mentionOf(ALICE, 'on carol’s server', `https://carol.example/notes/${++serial}`);
    elsewhere.id = `https://carol.example/activities/${serial}`;
    const fine = mentionOf(ALICE, 'fine');
    expect(await deliverPlain(forged, elsewhere, fine)).toBe(3);
    expect([forged, elsewhere, fine].map((c) => stored(c.object.id))).toEqual([false, false, true]);
  });

  it('keeps only what someone here has a reason to see: a public note of a stranger addressed to nobody here is dropped', async () => {
    const unaddressed = mentionOf(CAROL, 'to the world');
    unaddressed.cc = [];
    unaddressed.object.cc = [];
    unaddressed.object.tag = [];
    const mention = mentionOf(CAROL, 'to lain');
    expect(await deliverPlain(unaddressed, mention)).toBe(2);
    expect([stored(unaddressed.object.id), stored(mention.object.id)]).toEqual([false, true]);
  });

  it('stores the content as sanitised by the worker: no script, no handler, no javascript: link', async () => {
    const create = mentionOf(ALICE, 'sanitised');
    create.object.content =
      '<p onclick="steal()">@lain <a href="javascript:steal()">x</a><script>steal()</script><a href="https://alice.example/">ok</a></p>';
    expect(await deliverPlain(create)).toBe(1);
    const row = home.social.context.store.db
      .prepare('SELECT content FROM statuses WHERE uri = ?')
      .get(create.object.id) as { content: string };
    expect(row.content).toBe(sanitizeRemoteHtml(create.object.content));
    expect(row.content).not.toMatch(/script|onclick|javascript/);
  });

  it('does not create a post its author deleted before it arrived', async () => {
    const create = mentionOf(ALICE, 'deleted first');
    await deliver(deleteOf(ALICE, create.object.id));
    await handled();
    expect(await deliverPlain(create)).toBe(1);
    expect(stored(create.object.id)).toBe(false);
  });

  it('leaves a Create from a sender not known here to Fedify, which fetches the sender', async () => {
    // Eve's first delivery, a Delete of a post never seen, is verified with her key (held since) but stores no
    // account of hers (deletes from unknown accounts are ignored).
    await deliver(deleteOf(EVE, `${EVE}/statuses/0`));
    await handled();
    expect(home.social.context.store.accounts.byUri(EVE)).toBeNull();
    const create = mentionOf(EVE, 'eve');
    expect(await deliverPlain(create)).toBe(0);
    expect(stored(create.object.id)).toBe(true);
  });

  it('drops a Create queued before its domain was blocked', async () => {
    // Dave is known here; the block comes while his Create waits in the queue (handled here directly).
    await mentionedStatus(await mentionLain(DAVE, 'hello from dave'));
    const blockId = blockDomain('dave.example', 'suspend', false);
    const create = mentionOf(DAVE, 'queued before the block');
    const deps = (await home.social.federation!.context()).data;
    const message = {
      type: 'inbox' as const,
      baseUrl: HOME,
      identifier: null,
      activity: create,
      plainCreate: {
        activityId: create.id,
        actor: DAVE,
        object: {
          id: create.object.id,
          attributedTo: [DAVE],
          content: create.object.content,
          contentLength: create.object.content.length,
          language: null,
          summary: '',
          sensitive: false,
          to: [PUBLIC],
          cc: [LAIN],
          url: null,
          inReplyTo: null,
          mentions: [LAIN],
          hashtags: [],
          published: Date.now(),
          quoteApprovals: [],
        },
      },
    };
    expect(await handlePlainCreate(deps, new MemoryKvStore(), message)).toBe(true);
    expect(stored(create.object.id)).toBe(false);
    home.social.context.moderation.removeDomainBlock(blockId);
    expect(await handlePlainCreate(deps, new MemoryKvStore(), message)).toBe(true);
    expect(stored(create.object.id)).toBe(true);
  });
});

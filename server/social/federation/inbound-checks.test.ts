import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  for (const actor of [ALICE, MALLORY, CAROL]) await peers.actor(actor);
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

/** A public Note by `actor` mentioning lain (a private mention from a stranger would be filtered); returns its id. */
async function mentionLain(actor: string, text: string): Promise<string> {
  const id = `${actor}/statuses/${++serial}`;
  await deliver({
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
  });
  return id;
}

/** The id here of a remote post that mentioned lain, once its notification is there. */
async function mentionedStatus(uri: string): Promise<string> {
  const notification = await eventually(
    async () =>
      (await lain.client.v1.notifications.list({ types: ['mention'], limit: 40 })).find((n) => n.status?.uri === uri),
    `the mention of ${uri}`,
  );
  return notification.status!.id;
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
    const refused = home.social.context.moderation.blockDomain({
      domain: 'mallory.example',
      severity: 'noop',
      rejectMedia: false,
      rejectReports: true,
      privateComment: null,
      publicComment: null,
      obfuscate: false,
    });
    if (!('created' in refused)) throw new Error('the domain block was refused');
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

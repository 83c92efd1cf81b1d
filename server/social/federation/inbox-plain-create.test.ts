import { Activity, Note } from '@fedify/vocab';
import jsonld from '@fedify/vocab-runtime/jsonld';
import { describe, expect, it } from 'vitest';
import type { Account } from '../store/index.ts';
import { sanitizeRemoteHtml } from './html.ts';
import { plainCreateReader } from './inbox-plain-create.ts';
import { contextLoaderFactory } from './loaders.ts';
import { quotePolicyOf, remoteQuotePolicy } from './quotes-inbound.ts';
import { parsePlainStatus, parseStatus } from './statuses-inbound.ts';
import { outcome } from './testing/activities.ts';
import { corpusDocuments } from './testing/corpus-documents.ts';

/*
 * The worker's reading of a plain Create (inbox-plain-create.ts) against Fedify's: every Create of the fixtures
 * corpus and a set of shapes Mastodon and others send, expanded as the worker expands them; where the plain
 * reader takes one, what the inbox stores from it (parsePlainStatus, the quote policy, the addresses relevance
 * looks at) must be what Fedify's objects give (parseStatus), refusals included.
 */

type Json = Record<string, any>;
const contextLoader = contextLoaderFactory({});
const documentLoader = (url: string) => Promise.reject(new Error(`not fetched: ${url}`));

const ACTOR = 'https://masto.test/users/ana';
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const MASTODON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    ostatus: 'http://ostatus.org#',
    atomUri: 'ostatus:atomUri',
    conversation: 'ostatus:conversation',
    sensitive: 'as:sensitive',
    toot: 'http://joinmastodon.org/ns#',
    Hashtag: 'as:Hashtag',
    gts: 'https://gotosocial.org/ns#',
    interactionPolicy: { '@id': 'gts:interactionPolicy', '@type': '@id' },
    canQuote: { '@id': 'gts:canQuote', '@type': '@id' },
    automaticApproval: { '@id': 'gts:automaticApproval', '@type': '@id' },
  },
];

/** A Create of a Note by ACTOR with `note`'s properties. */
function shaped(name: string, note: Json, context: unknown = MASTODON_CONTEXT): { name: string; json: Json } {
  const id = `${ACTOR}/statuses/${name}`;
  return {
    name,
    json: {
      '@context': context,
      id: `${id}/activity`,
      type: 'Create',
      actor: ACTOR,
      to: [PUBLIC],
      object: { id, type: 'Note', attributedTo: ACTOR, to: [PUBLIC], content: `<p>${name}</p>`, ...note },
    },
  };
}

const SHAPES = [
  shaped('plain', { published: '2026-01-02T03:04:05Z' }, 'https://www.w3.org/ns/activitystreams'),
  shaped('mastodon', {
    summary: null,
    inReplyTo: null,
    published: '2026-01-02T03:04:05.123456+02:00',
    url: 'https://masto.test/@ana/1',
    cc: [`${ACTOR}/followers`, 'https://home.test/users/lain'],
    sensitive: false,
    atomUri: `${ACTOR}/statuses/1`,
    conversation: 'tag:masto.test,2026:objectId=1:objectType=Conversation',
    content: '<p>hi <a href="https://home.test/users/lain">@lain</a> #Tag</p>',
    contentMap: { 'en-GB': '<p>hi</p>' },
    attachment: [],
    tag: [
      { type: 'Mention', href: 'https://home.test/users/lain', name: '@lain@home.test' },
      { type: 'Hashtag', href: 'https://masto.test/tags/tag', name: '#Tag' },
      { type: 'Hashtag', href: 'https://masto.test/tags/x', name: '#not a tag' },
    ],
    replies: { id: `${ACTOR}/statuses/1/replies`, type: 'Collection', first: { type: 'CollectionPage', items: [] } },
    likes: { id: `${ACTOR}/statuses/1/likes`, type: 'Collection', totalItems: 2 },
    shares: { id: `${ACTOR}/statuses/1/shares`, type: 'Collection', totalItems: 0 },
    interactionPolicy: { canQuote: { automaticApproval: [PUBLIC], manualApproval: [] } },
  }),
  shaped('warned', { summary: '<b>cw</b>', sensitive: false, inReplyTo: 'https://home.test/users/lain/statuses/9' }),
  shaped('followers-only', {
    to: [`${ACTOR}/followers`],
    interactionPolicy: { canQuote: { automaticApproval: [`${ACTOR}/followers`] } },
  }),
  shaped('contentmap-only', { content: undefined, contentMap: { de: '<p>hallo</p>', fr: '<p>salut</p>' } }),
  shaped('http-url', { url: 'ftp://masto.test/x' }),
  shaped('someone-else', { attributedTo: 'https://masto.test/users/bea' }),
  shaped('other-server', {}),
  shaped('named', { name: 'a vote' }),
  shaped('with-emoji', {
    tag: [{ type: 'Emoji', name: ':x:', icon: { type: 'Image', url: 'https://masto.test/x.png' } }],
  }),
];
// The object on another server than its author's, in a Create from that server (the plain reader takes it).
SHAPES[7].json.id = 'https://elsewhere.test/activities/1';
SHAPES[7].json.object.id = 'https://elsewhere.test/notes/1';

const readPlainCreate = plainCreateReader(sanitizeRemoteHtml);

const accountOf = (uri: string) => ({ uri, followersUrl: `${uri}/followers`, domain: new URL(uri).host }) as Account;

describe("the verifier worker's reading of plain Creates", () => {
  it("stores what Fedify's objects give, for the corpus's Creates and Mastodon's shapes; the rest is left to Fedify", async () => {
    const taken: string[] = [];
    const left: string[] = [];
    for (const { name, json } of [...corpusDocuments().filter((d) => d.json.type === 'Create'), ...SHAPES]) {
      const expansion = await jsonld.expand(structuredClone(json), {
        documentLoader: contextLoader,
        keepFreeFloatingNodes: true,
      });
      const plain = readPlainCreate(expansion);
      if (!plain) {
        left.push(name);
        continue;
      }
      taken.push(name);
      const activity = await Activity.fromJsonLd(json, { contextLoader, documentLoader });
      const note = await activity.getObject({ contextLoader, documentLoader });
      expect(note, name).toBeInstanceOf(Note);
      expect([plain.activityId, plain.actor], name).toEqual([activity.id?.href, activity.actorId?.href]);
      const author = accountOf(plain.actor);
      const fedify = note as Note;
      expect(await outcome(() => parsePlainStatus(plain.object, author)), name).toEqual(
        await outcome(() => parseStatus(fedify, author, activity)),
      );
      expect(quotePolicyOf(plain.object.quoteApprovals, author), name).toBe(remoteQuotePolicy(fedify, author));
      expect([plain.object.inReplyTo, ...plain.object.to, ...plain.object.cc], name).toEqual([
        fedify.replyTargetId?.href ?? null,
        ...[...fedify.toIds, ...fedify.ccIds].map((u) => u.href),
      ]);
    }
    expect(taken).toEqual(
      expect.arrayContaining([
        'mastodon-post-activity.json',
        'mastodon-post-activity-hashtag.json',
        'mastodon-post-activity-contentmap.json',
        'mastodon-post-activity-nsfw.json',
        'plain',
        'mastodon',
        'warned',
        'followers-only',
        'contentmap-only',
        'http-url',
        'someone-else',
        'other-server',
      ]),
    );
    // An attachment, a poll, a vote (a named note), an emoji, other object types: Fedify's reading.
    expect(left).toEqual(
      expect.arrayContaining([
        'mastodon-create-with-attachment.json',
        'mastodon-question-activity.json',
        'mastodon-vote.json',
        'kroeg-array-less-emoji.json',
        'named',
        'with-emoji',
      ]),
    );
  });
});

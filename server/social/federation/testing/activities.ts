/** ActivityPub documents as another server sends them, for tests that deliver them to an inbox. */

export type Json = Record<string, any>;

/** The collection that addresses everyone. */
export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** Mastodon's context for what its posts carry (Hashtag, Emoji and blurhash are its extensions). */
export const MASTODON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  { toot: 'http://joinmastodon.org/ns#', blurhash: 'toot:blurhash', Hashtag: 'as:Hashtag', Emoji: 'toot:Emoji' },
];

/** The context Mastodon gives its Creates: its inline extension context after ActivityStreams' and security's. */
export const MASTODON_CREATE_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    ostatus: 'http://ostatus.org#',
    atomUri: 'ostatus:atomUri',
    inReplyToAtomUri: 'ostatus:inReplyToAtomUri',
    conversation: 'ostatus:conversation',
    sensitive: 'as:sensitive',
    toot: 'http://joinmastodon.org/ns#',
    votersCount: 'toot:votersCount',
    Hashtag: 'as:Hashtag',
  },
];

/**
 * Note `n`'s Create as Mastodon sends it (without its Linked Data signature): its inline context, followers and
 * `mentioned` in cc, a hashtag and a mention, its replies collection (bench:federation's Mastodon shape).
 */
export function mastodonCreate(actor: string, n: number, mentioned: string, published: string): Json {
  const id = `${actor}/statuses/${n}`;
  const to = [PUBLIC];
  const cc = [`${actor}/followers`, mentioned];
  return {
    '@context': MASTODON_CREATE_CONTEXT,
    id: `${id}/activity`,
    type: 'Create',
    actor,
    published,
    to,
    cc,
    object: {
      id,
      type: 'Note',
      summary: null,
      inReplyTo: null,
      published,
      url: `${actor.replace('/users/', '/@')}/${n}`,
      attributedTo: actor,
      to,
      cc,
      sensitive: false,
      atomUri: id,
      inReplyToAtomUri: null,
      conversation: `tag:example,2026:objectId=${n}:objectType=Conversation`,
      content: `<p>note ${n} <a href="https://example.org/tags/bench" class="mention hashtag" rel="tag">#<span>bench</span></a> <span class="h-card"><a href="${mentioned}" class="u-url mention">@<span>alice</span></a></span></p>`,
      contentMap: { en: `<p>note ${n}</p>` },
      attachment: [],
      tag: [
        { type: 'Mention', href: mentioned, name: '@alice' },
        { type: 'Hashtag', href: 'https://example.org/tags/bench', name: '#bench' },
      ],
      replies: {
        id: `${id}/replies`,
        type: 'Collection',
        first: {
          type: 'CollectionPage',
          next: `${id}/replies?only_other_accounts=true&page=true`,
          partOf: `${id}/replies`,
          items: [],
        },
      },
    },
  };
}

/** What `read` answers, or why it refused: `{ refused: message }` (to compare two readings' outcomes). */
export async function outcome(read: () => unknown): Promise<unknown> {
  try {
    return await read();
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

export interface BuiltCreate {
  /** The Note's id. */
  uri: string;
  activity: Json;
}

/**
 * Builds public Creates of Notes mentioning `recipient` (its actor id and the name its mention shows), each by
 * the actor given with the Note's `extra` properties; Notes are numbered in order of building.
 */
export function mentionCreates(recipient: {
  id: string;
  mention: string;
}): (actor: string, extra?: Json) => BuiltCreate {
  let posts = 0;
  return (actor, extra = {}) => {
    const uri = `${actor}/statuses/${++posts}`;
    const note = {
      id: uri,
      type: 'Note',
      attributedTo: actor,
      content: `<p>post ${posts} for <a href="${recipient.id}">${recipient.mention}</a></p>`,
      to: [PUBLIC],
      cc: [recipient.id],
      ...extra,
      tag: [{ type: 'Mention', href: recipient.id, name: recipient.mention }, ...(extra.tag ?? [])],
    };
    return {
      uri,
      activity: {
        '@context': MASTODON_CONTEXT,
        id: `${uri}/activity`,
        type: 'Create',
        actor,
        to: [PUBLIC],
        cc: [recipient.id],
        object: note,
      },
    };
  };
}

/** An image attachment at `url`. */
export const image = (url: string, extra: Json = {}): Json => ({
  type: 'Document',
  mediaType: 'image/png',
  url,
  ...extra,
});

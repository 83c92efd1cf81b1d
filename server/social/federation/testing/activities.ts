/** ActivityPub documents as another server sends them, for tests that deliver them to an inbox. */

export type Json = Record<string, any>;

/** The collection that addresses everyone. */
export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** Mastodon's context for what its posts carry (Hashtag, Emoji and blurhash are its extensions). */
export const MASTODON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  { toot: 'http://joinmastodon.org/ns#', blurhash: 'toot:blurhash', Hashtag: 'as:Hashtag', Emoji: 'toot:Emoji' },
];

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

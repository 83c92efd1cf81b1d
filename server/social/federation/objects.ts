import {
  Collection,
  Create,
  Hashtag,
  LanguageString,
  Mention,
  Note,
  Object as APObject,
  PUBLIC_COLLECTION,
  Question,
  Tombstone,
} from '@fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import type { StatusRow } from '../store/index.ts';
import { attachmentDocument, MastodonCreate, MastodonNote, MastodonQuestion } from './attachments.ts';
import { emojiTags } from './emojis.ts';
import { localAccount, type Fed, type FedContext } from './deps.ts';
import { actorUri, statusUri } from './uris.ts';
import {
  noteQuoteValues,
  quoteInteractionPolicy,
  registerQuoteAuthorizations,
  withQuoteFallback,
} from './quote-objects.ts';

/** How many statuses one outbox page holds. */
const OUTBOX_PAGE = 20;

function instant(ms: number) {
  return Temporal.Instant.fromEpochMilliseconds(ms) as unknown as globalThis.Temporal.Instant;
}

/** Addressing as Mastodon does it, per visibility (see federation.md §1.5). */
export function addressing(
  visibility: StatusRow['visibility'],
  followers: URL,
  mentioned: URL[],
): { tos: URL[]; ccs: URL[] } {
  switch (visibility) {
    case 'public':
      return { tos: [PUBLIC_COLLECTION], ccs: [followers, ...mentioned] };
    case 'unlisted':
      return { tos: [followers], ccs: [PUBLIC_COLLECTION, ...mentioned] };
    case 'private':
      return { tos: [followers], ccs: mentioned };
    default:
      return { tos: mentioned, ccs: [] };
  }
}

/** The Note (or Question for a poll) of a local status, with mentions, hashtags, attachments and its reply target. */
export function noteOf(c: FedContext, status: StatusRow): Note | Question | null {
  const deps = c.data;
  const store = deps.social.store;
  const author = store.accounts.byId(status.accountId);
  if (!author || author.domain !== null || status.reblogOfId !== null) return null;
  const mentioned = store.accounts.byIds(store.statuses.mentions([status.id]).map((m) => m.accountId));
  const mentionUris = mentioned.map((a) => new URL(actorUri(deps, a)));
  const { tos, ccs } = addressing(status.visibility, c.getFollowersUri(author.username), mentionUris);
  const replyTo = status.inReplyToId ? store.statuses.byId(status.inReplyToId) : null;
  const media = store.media.forStatuses([status.id]).get(status.id) ?? [];
  const tags = [
    ...mentioned.map(
      (a) =>
        new Mention({
          href: new URL(actorUri(deps, a)),
          name: `@${a.username}${a.domain ? `@${a.domain}` : `@${deps.social.urls.domain}`}`,
        }),
    ),
    ...(store.statuses.tags([status.id]).get(status.id) ?? []).map(
      (name) => new Hashtag({ href: new URL(deps.social.urls.tagUrl(name)), name: `#${name}` }),
    ),
    ...emojiTags(deps, status.content, status.spoilerText),
  ];
  const quote = noteQuoteValues(deps, status);
  const content = quote?.fallbackUrl ? withQuoteFallback(status.content, quote.fallbackUrl) : status.content;
  const values = {
    id: new URL(statusUri(deps, status, author)),
    attribution: c.getActorUri(author.username),
    tos,
    ccs,
    url: new URL(deps.social.urls.statusUrl(author.username, status.id)),
    published: instant(status.createdAt),
    updated: status.editedAt !== null ? instant(status.editedAt) : null,
    summary: status.spoilerText || null,
    sensitive: status.sensitive,
    // contentMap when the language is known (Mastodon sends both; Fedify writes `content` from the first entry).
    ...(status.language ? { contents: [content, new LanguageString(content, status.language)] } : { content }),
    replyTarget: replyTo ? new URL(statusUri(deps, replyTo)) : null,
    tags,
    attachments: media
      .filter((m) => m.filePath || m.remoteUrl)
      .map((m) => attachmentDocument(m, m.filePath ? deps.social.urls.media(m.filePath) : m.remoteUrl!)),
    interactionPolicy: quoteInteractionPolicy(c, status, author),
    ...(quote ? { quote: quote.quote, quoteUrl: quote.quoteUrl, quoteAuthorization: quote.quoteAuthorization } : {}),
  };
  if (status.pollId) {
    const poll = store.polls.byId(status.pollId);
    if (poll) {
      const tally = store.polls.tallies([poll]).get(poll.id)!;
      const options = poll.options.map(
        (name, i) => new Note({ name, replies: new Collection({ totalItems: tally.perOption[i] }) }),
      );
      const ended = poll.expiresAt !== null && poll.expiresAt <= store.now();
      return new MastodonQuestion({
        ...values,
        ...(poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
        endTime: poll.expiresAt !== null ? instant(poll.expiresAt) : null,
        closed: ended && poll.expiresAt !== null ? instant(poll.expiresAt) : null,
        voters: tally.voters,
      });
    }
  }
  return new MastodonNote(values);
}

/** Status objects (content negotiation on their ids), the outbox and the featured collection. */
export function registerObjects(federation: Fed): void {
  registerQuoteAuthorizations(federation);
  federation.setObjectDispatcher(APObject, '/users/{identifier}/statuses/{id}', async (c, { identifier, id }) => {
    const deps = c.data;
    const author = localAccount(deps, identifier);
    if (!author || !/^\d+$/.test(id)) return null;
    const status = deps.social.store.statuses.byId(id);
    if (!status || status.accountId !== author.id || status.reblogOfId !== null) return null;
    if (status.deletedAt !== null)
      return new Tombstone({ id: c.getObjectUri(APObject, { identifier, id }), deleted: instant(status.deletedAt) });
    if (status.visibility === 'public' || status.visibility === 'unlisted') return noteOf(c, status);
    // Followers-only and direct statuses only for a signed request from an actor allowed to read them.
    const signer = await c.getSignedKeyOwner();
    const reader = signer?.id ? deps.social.store.accounts.byUri(signer.id.href) : null;
    return reader && deps.social.store.timelines.readable(reader.id, status.id) ? noteOf(c, status) : null;
  });

  federation
    .setOutboxDispatcher('/users/{identifier}/outbox', async (c, identifier, cursor) => {
      const deps = c.data;
      const account = localAccount(deps, identifier);
      if (!account) return null;
      if (cursor === null) return { items: [] };
      const page = deps.social.store.timelines.account(
        deps.social.store.timelines.scope(null),
        account.id,
        { excludeReplies: false, excludeReblogs: true, onlyMedia: false, pinned: false },
        { limit: OUTBOX_PAGE, ...(cursor ? { maxId: cursor } : {}) },
      );
      const statuses = page.map((p) => p.status);
      const items = statuses
        .map((s) => {
          const note = noteOf(c, s);
          return note ? createOf(note) : null;
        })
        .filter((x): x is Create => x !== null);
      return { items, nextCursor: page.length === OUTBOX_PAGE ? page[page.length - 1].cursor : null };
    })
    .setCounter((c, identifier) => {
      const account = localAccount(c.data, identifier);
      return account ? c.data.social.store.accounts.counts([account]).get(account.id)!.statuses : null;
    })
    .setFirstCursor(() => '');

  federation.setFeaturedTagsDispatcher('/users/{identifier}/collections/tags', async (c, identifier) => {
    const deps = c.data;
    const account = localAccount(deps, identifier);
    if (!account) return null;
    const urls = deps.social.urls;
    return {
      items: deps.social.store.tags
        .featured(account.id)
        .map((f) => new Hashtag({ href: new URL(urls.tagUrl(f.tag.name)), name: `#${f.tag.displayName}` })),
    };
  });

  federation.setFeaturedDispatcher('/users/{identifier}/collections/featured', async (c, identifier) => {
    const deps = c.data;
    const account = localAccount(deps, identifier);
    if (!account) return null;
    const page = deps.social.store.timelines.account(
      deps.social.store.timelines.scope(null),
      account.id,
      { excludeReplies: false, excludeReblogs: true, onlyMedia: false, pinned: true },
      { limit: 40 },
    );
    return { items: page.map((p) => noteOf(c, p.status)).filter((n): n is Note | Question => n !== null) };
  });
}

/** The Create of one of our statuses (its id the Note's plus /activity, as Mastodon's), sent, served and archived alike. */
export function createOf(note: Note | Question): InstanceType<typeof MastodonCreate> {
  return new MastodonCreate({
    id: new URL(`${note.id!.href}/activity`),
    actor: note.attributionId,
    object: note,
    tos: note.toIds,
    ccs: note.ccIds,
    published: note.published,
  });
}

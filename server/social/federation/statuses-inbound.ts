import {
  Article,
  Audio,
  Emoji,
  Event,
  Hashtag,
  Image,
  LanguageString,
  Mention,
  Note,
  Page,
  PUBLIC_COLLECTION,
  Question,
  Video,
  type Activity,
  type Object as APObject,
} from '@fedify/vocab';
import type { ReceivedStatus } from '../domain/index.ts';
import type { Account, RemoteAttachment, StatusRow, Visibility } from '../store/index.ts';
import { localAccountByUri, localStatusId, type FedContext } from './deps.ts';
import { sanitizeRemoteHtml, stripHtml } from './html.ts';
import { accountForActorId, RejectedDocument } from './remote.ts';
import { fetchObject } from './lookup.ts';
import { emojiOf, type RemoteEmoji } from './emojis.ts';
import { refuseToFetch, WITHOUT_FETCHING } from './inbound-limits.ts';
import { parseAttachments } from './attachments.ts';
import { applyIncomingQuote, type IncomingQuoteInfo, readIncomingQuote } from './quotes-inbound.ts';
import type { PlainStatusFields } from './inbox-plain-create.ts';

/** Longest remote content kept (characters of HTML); longer posts are refused, not cut. */
export const MAX_REMOTE_CONTENT = 100_000;
const MAX_TAGS = 64;

/** Object types a remote status may be (Mastodon shows Article, Page, Event… through their summary and link). */
export type StatusObject = Note | Question | Article | APObject;

/** Objects Mastodon converts into a post of their name (and summary) and a link: PeerTube's videos, Hubzilla's photos, articles… */
const CONVERTED_TYPES = [Article, Page, Event, Image, Video, Audio];

/** The object types taken as posts: Mastodon's Note and Question, and the ones it converts (CONVERTED_TYPES). */
export function isStatusObject(
  object: unknown,
): object is Note | Question | Article | Page | Event | Image | Video | Audio {
  return object instanceof Note || object instanceof Question || CONVERTED_TYPES.some((type) => object instanceof type);
}

/** Mastodon's limits for remote polls. */
const MAX_POLL_OPTIONS = 20;
const MAX_POLL_OPTION_CHARS = 200;

export interface RemotePoll {
  options: string[];
  tallies: number[];
  multiple: boolean;
  expiresAt: number | null;
  voters: number | null;
}

/** The poll of a Question: oneOf (single choice) or anyOf (multiple), each option a Note with a name and a reply count. */
async function parsePoll(question: Question): Promise<RemotePoll | null> {
  const options: string[] = [];
  const tallies: number[] = [];
  let multiple = false;
  for (const [list, isMultiple] of [
    // Embedded options only, as Mastodon reads them: one given by address is not fetched.
    [question.getExclusiveOptions(WITHOUT_FETCHING), false],
    [question.getInclusiveOptions(WITHOUT_FETCHING), true],
  ] as const) {
    for await (const option of list) {
      if (options.length >= MAX_POLL_OPTIONS) break;
      const name = option.name?.toString().trim();
      if (!name) continue;
      options.push(name.slice(0, MAX_POLL_OPTION_CHARS));
      // Counts come embedded (Mastodon, Misskey…); a replies link is not followed.
      const replies =
        option instanceof Note ? await option.getReplies({ documentLoader: refuseToFetch }).catch(() => null) : null;
      tallies.push(Math.max(0, Math.trunc(replies?.totalItems ?? 0)));
      if (isMultiple) multiple = true;
    }
  }
  if (options.length === 0) return null;
  const closed = question.closed;
  const end = question.endTime ?? (closed && typeof closed !== 'boolean' ? closed : null);
  const voters = question.voters;
  return {
    options,
    tallies,
    multiple,
    expiresAt: end ? end.epochMilliseconds : null,
    voters: typeof voters === 'number' && voters >= 0 ? Math.trunc(voters) : null,
  };
}

const PUBLIC_IDS = new Set([PUBLIC_COLLECTION.href, 'as:Public', 'Public']);

/** Mastodon's reading of to/cc (federation.md §1.5): public, unlisted, followers-only or direct. */
export function visibilityOf(object: APObject, followersUri: string | null): Visibility {
  return visibilityOfAddresses(
    object.toIds.map((u) => u.href),
    object.ccIds.map((u) => u.href),
    followersUri,
  );
}

function visibilityOfAddresses(to: string[], cc: string[], followersUri: string | null): Visibility {
  if (to.some((u) => PUBLIC_IDS.has(u))) return 'public';
  if (cc.some((u) => PUBLIC_IDS.has(u))) return 'unlisted';
  if (followersUri && [...to, ...cc].includes(followersUri)) return 'private';
  return 'direct';
}

/** The page of an object: its url, or among several (PeerTube's files, Hubzilla's sizes) the HTML one, as Mastodon picks it. */
function pageUrl(object: APObject): string | null {
  const links = object.urls.map((u) =>
    u instanceof URL ? { href: u.href, html: true } : { href: u.href?.href ?? null, html: u.mediaType === 'text/html' },
  );
  const chosen = links.find((l) => l.html && l.href) ?? links.find((l) => l.href);
  return chosen?.href && /^https?:\/\//.test(chosen.href) ? chosen.href : null;
}

/** A remote status as read: what the domain stores, and the addresses and attachments federation resolves itself. */
export interface ParsedStatus extends ReceivedStatus {
  inReplyToUri: string | null;
  mentionUris: string[];
  attachments: RemoteAttachment[];
  poll: RemotePoll | null;
  emojis: RemoteEmoji[];
}

/**
 * A status's fields as read from Fedify's object or, for a plain Note, by the verifier's worker (inbox-plain-create.ts,
 * where the content is sanitised: `sanitized`).
 */
type StatusFields = Omit<PlainStatusFields, 'quoteApprovals'> & { sanitized: boolean };

/**
 * What every reading of a status checks and derives from its fields: the author must be the object's attributedTo
 * and the object must live on the author's server (the signer owns it). `shown`: the HTML shown instead of the
 * content (the types Mastodon converts into their name and a link).
 */
function statusOfFields(
  fields: StatusFields,
  author: Account,
  shown: string | null,
): Omit<ParsedStatus, 'attachments' | 'poll' | 'emojis'> {
  if (!author.uri) throw new RejectedDocument('the author is not a remote actor');
  if (!fields.attributedTo.includes(author.uri))
    throw new RejectedDocument('the object is attributed to someone other than the actor who sent it');
  if (new URL(fields.id).origin !== new URL(author.uri).origin)
    throw new RejectedDocument("the object's id is not on its author's server");
  if (fields.contentLength > MAX_REMOTE_CONTENT)
    throw new RejectedDocument(`the content is longer than ${MAX_REMOTE_CONTENT} characters`);
  const tags = fields.hashtags
    .map((name) => name.replace(/^#/, ''))
    .filter((name) => /^[\p{L}\p{N}_]{1,100}$/u.test(name))
    .map((name) => name.toLowerCase());
  const spoilerText = stripHtml(fields.summary).slice(0, 1000);
  return {
    uri: fields.id,
    url: fields.url,
    content: fields.sanitized && shown === null ? fields.content : sanitizeRemoteHtml(shown ?? fields.content),
    spoilerText,
    // A content warning makes a status sensitive, as Mastodon shows it.
    sensitive: fields.sensitive || spoilerText !== '',
    language: fields.language,
    visibility: visibilityOfAddresses(fields.to, fields.cc, author.followersUrl),
    inReplyToUri: fields.inReplyTo,
    mentionUris: [...new Set(fields.mentions)],
    tags: [...new Set(tags)],
    publishedAt: fields.published,
  };
}

/**
 * Reads a remote status object into our model, or throws RejectedDocument with the reason (see statusOfFields).
 * `embeddedIn`: the document it came in (an activity, a collection), whose JSON holds the attachments' blurhash
 * and focal point.
 */
export async function parseStatus(
  object: StatusObject,
  author: Account,
  embeddedIn: APObject | null = null,
): Promise<ParsedStatus> {
  const id = object.id;
  if (!id) throw new RejectedDocument('the object has no id');
  if (!author.uri) throw new RejectedDocument('the author is not a remote actor');
  // Article, Page, Event…: Mastodon shows the name and a link instead of the whole text.
  let shown: string | null = null;
  if (!(object instanceof Note) && !(object instanceof Question) && object.name) {
    const url = pageUrl(object) ?? id.href;
    shown = `<p>${stripHtml(object.name.toString())}</p><p><a href="${url}">${url}</a></p>`;
  }
  const mentions: string[] = [];
  const hashtags: string[] = [];
  const emojis: RemoteEmoji[] = [];
  let count = 0;
  // Tags are read as embedded (as Mastodon reads them): one given by its address only is skipped, not fetched.
  for await (const tag of object.getTags(WITHOUT_FETCHING)) {
    if (++count > MAX_TAGS) break;
    if (tag instanceof Emoji) {
      const emoji = await emojiOf(tag);
      if (emoji) emojis.push(emoji);
    } else if (tag instanceof Mention && tag.href) mentions.push(tag.href.href);
    else if (tag instanceof Hashtag && tag.name) hashtags.push(tag.name.toString());
  }
  const content = object.content?.toString() ?? '';
  const fields: StatusFields = {
    id: id.href,
    attributedTo: object.attributionIds.map((u) => u.href),
    content,
    contentLength: content.length,
    sanitized: false,
    language:
      object.contents.find((c): c is LanguageString => c instanceof LanguageString)?.locale.baseName.split('-')[0] ??
      null,
    summary: object.summary?.toString() ?? '',
    sensitive: object.sensitive ?? false,
    to: object.toIds.map((u) => u.href),
    cc: object.ccIds.map((u) => u.href),
    url: pageUrl(object),
    inReplyTo: object.replyTargetId?.href ?? null,
    mentions,
    hashtags,
    published: object.published ? object.published.epochMilliseconds : null,
  };
  const status = statusOfFields(fields, author, shown);
  return {
    ...status,
    attachments: await parseAttachments(object, embeddedIn),
    poll: object instanceof Question ? await parsePoll(object) : null,
    emojis,
  };
}

/** A plain Note the verifier's worker read and sanitised (inbox-plain-create.ts) as parseStatus reads Fedify's object. */
export function parsePlainStatus(fields: PlainStatusFields, author: Account): ParsedStatus {
  return { ...statusOfFields({ ...fields, sanitized: true }, author, null), attachments: [], poll: null, emojis: [] };
}

/** A domain block with reject_media keeps that server's media out. */
function acceptsMedia(deps: FedContext['data'], author: Account): boolean {
  return !author.domain || !deps.social.moderation.domainPolicy(author.domain).rejectMedia;
}

/**
 * Stores a remote status (Create) with its mentions, hashtags, attachments and thread, puts it in the home
 * feeds of local followers (and mentioned users), and notifies mentioned local users. Returns the status, or
 * the existing one when the id is known already. `quiet`: an old post fetched for a profile (a pinned one):
 * stored only, not put in feeds, not notified, not streamed. `embeddedIn`: the document that carried the object
 * (the Create, a featured collection, a QuoteRequest), as parseStatus takes it.
 */
export async function createRemoteStatus(
  c: FedContext,
  object: StatusObject,
  author: Account,
  options: { quiet?: boolean; embeddedIn?: APObject } = {},
): Promise<StatusRow> {
  const parsed = await parseStatus(object, author, options.embeddedIn ?? null);
  // Before the existence check: fetching the quoted post may store this very post (a cycle of quotes).
  const quote = await readIncomingQuote(c, object, author, fetchQuotedStatus);
  return storeRemoteStatus(c.data, author, parsed, quote, options.quiet ?? false);
}

/** Stores a parsed remote status as createRemoteStatus does (null `quote`: nothing said or known already). */
export function storeRemoteStatus(
  deps: FedContext['data'],
  author: Account,
  parsed: ParsedStatus,
  quote: IncomingQuoteInfo | null,
  quiet: boolean,
): StatusRow {
  const store = deps.social.store;
  const existing = deps.repo.statusByUri(parsed.uri);
  if (existing) return store.statuses.byId(existing)!;
  const mentioned = parsed.mentionUris
    .map((u) => localAccountByUri(deps, u) ?? store.accounts.byUri(u))
    .filter((a): a is Account => a !== null);
  const parentId = parsed.inReplyToUri
    ? (localStatusId(deps, parsed.inReplyToUri) ?? deps.repo.statusByUri(parsed.inReplyToUri))
    : null;
  const parent = parentId ? store.statuses.byId(parentId) : null;
  const quotePolicy = quote?.policy;
  return deps.social.remoteActivity.statusReceived(author, parsed, { parent, mentioned, quiet, quotePolicy }, (id) => {
    applyIncomingQuote(deps, id, quote);
    if (parsed.attachments.length > 0 && acceptsMedia(deps, author))
      parsed.attachments.forEach((a, position) =>
        deps.social.store.remoteMedia.insert(author.id, id, { ...a, position }),
      );
  });
}

/** A quoted post by its id, fetched from its server and stored quietly (what inbound quotes need), or null. */
export async function fetchQuotedStatus(c: FedContext, uri: string): Promise<StatusRow | null> {
  const object = await fetchObject(c, uri).catch(() => null);
  if (!isStatusObject(object) || object.id?.href !== uri || !object.attributionId) return null;
  const author = await accountForActorId(c, object.attributionId);
  if (!author || author.domain === null) return null;
  return createRemoteStatus(c, object, author, { quiet: true }).catch(() => null);
}

/** Applies an Update of a remote status its author sent (content, warnings, mentions, hashtags, attachments). */
export async function updateRemoteStatus(
  c: FedContext,
  object: StatusObject,
  author: Account,
  activity: Activity | null = null,
): Promise<StatusRow | null> {
  const deps = c.data;
  const store = deps.social.store;
  const parsed = await parseStatus(object, author, activity);
  const id = deps.repo.statusByUri(parsed.uri);
  const status = id ? store.statuses.byId(id) : null;
  if (!status || status.accountId !== author.id || status.deletedAt !== null) return null;
  const mentioned = parsed.mentionUris
    .map((u) => localAccountByUri(deps, u) ?? store.accounts.byUri(u))
    .filter((a): a is Account => a !== null);
  const edited =
    parsed.content !== status.content ||
    parsed.spoilerText !== status.spoilerText ||
    parsed.sensitive !== status.sensitive;
  return deps.social.remoteActivity.statusUpdated(
    status,
    author,
    parsed,
    { edited, mentioned },
    () => acceptsMedia(deps, author) && deps.social.store.remoteMedia.sync(author.id, status.id, parsed.attachments),
  );
}

/** Deletes a remote status on its author's word: off every feed, with its notifications and reblogs. */
export function deleteRemoteStatus(c: FedContext, uri: string, author: Account): boolean {
  const deps = c.data;
  const store = deps.social.store;
  const id = deps.repo.statusByUri(uri);
  const status = id ? store.statuses.byId(id) : null;
  if (!status || status.accountId !== author.id || status.deletedAt !== null) return false;
  deps.social.remoteActivity.statusDeleted(status);
  return true;
}

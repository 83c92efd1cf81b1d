import {
  Audio,
  Create,
  Document,
  Image,
  Link,
  Note,
  Question,
  Update,
  Video,
  type Object as APObject,
} from '@fedify/vocab';
import { isBlurhashValid } from 'blurhash';
import type { MediaMeta, MediaRow, RemoteAttachment, RemoteMediaType } from '../store/index.ts';
import { isJsonRecord as isRecord, type JsonRecord } from '../json-record.ts';
import { WITHOUT_FETCHING } from './inbound-limits.ts';

/*
 * Attachments both ways, with what Mastodon adds to AS2's Document: the description (`name`), the blurhash
 * (`toot:blurhash`), the focal point (`toot:focalPoint`, [x, y] from -1 to 1) and the size (`width`,
 * `height`). Fedify's vocabulary has no blurhash or focalPoint: incoming ones are read from the JSON as its
 * sender wrote it (Mastodon, Misskey and Akkoma read those keys the same way, without JSON-LD processing);
 * outgoing Documents add them to their JSON-LD, and our Notes and the activities carrying them put them back in
 * the plain keys those servers read.
 */

const MAX_ATTACHMENTS = 16;
const MAX_DESCRIPTION = 1500;
/** Mastodon refuses blurhashes with more than 5×5 components (each costs clients decoding time). */
const MAX_BLURHASH_COMPONENTS = 5;
const MAX_BLURHASH_LENGTH = 100;
const MAX_DIMENSION = 100_000;
const TOOT = 'http://joinmastodon.org/ns#';
const AS = 'https://www.w3.org/ns/activitystreams#';
const AS_ATTACHMENT = `${AS}attachment`;

function mediaType(attachment: APObject, contentType: string | null): RemoteMediaType {
  if (attachment instanceof Image || contentType?.startsWith('image/'))
    return contentType === 'image/gif' ? 'gifv' : 'image';
  if (attachment instanceof Video || contentType?.startsWith('video/')) return 'video';
  if (attachment instanceof Audio || contentType?.startsWith('audio/')) return 'audio';
  return 'unknown';
}

/** A JSON-LD value without its wrapping: `{"@value": v}`, `{"@list": […]}` and one-element arrays of those. */
function plain(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 1 && isRecord(value[0]) && ('@value' in value[0] || '@list' in value[0]))
    return plain(value[0]);
  if (isRecord(value) && '@list' in value) return plain(value['@list']);
  if (isRecord(value) && '@value' in value) return value['@value'];
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

/**
 * A Mastodon extension property as the sender spelled it: the usual term, the `toot:` prefix, or the full IRI
 * (what Fedify's compaction of an activity with a Linked Data signature leaves of terms it does not know).
 */
function tootProperty(entry: JsonRecord, term: string): unknown {
  for (const key of [term, `toot:${term}`, `${TOOT}${term}`]) if (key in entry) return plain(entry[key]);
  return undefined;
}

/** An ActivityStreams property as the sender (or Fedify's compaction) spelled it: the term, `as:` or the full IRI. */
function asProperty(entry: JsonRecord, term: string): unknown {
  for (const key of [term, `as:${term}`, `${AS}${term}`]) if (key in entry) return plain(entry[key]);
  return undefined;
}

/** A blurhash as Mastodon accepts one: well-formed, at most 5×5 components. */
export function acceptableBlurhash(value: unknown): string | null {
  if (typeof value !== 'string' || value.length < 6 || value.length > MAX_BLURHASH_LENGTH) return null;
  if (!isBlurhashValid(value).result) return null;
  const sizeFlag = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~'.indexOf(
    value[0],
  );
  const componentsX = (sizeFlag % 9) + 1;
  const componentsY = Math.floor(sizeFlag / 9) + 1;
  return componentsX <= MAX_BLURHASH_COMPONENTS && componentsY <= MAX_BLURHASH_COMPONENTS ? value : null;
}

/** A focal point [x, y], each from -1 to 1 (Mastodon's range); anything else is ignored. */
export function acceptableFocus(value: unknown): { x: number; y: number } | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [x, y] = value.map((v) => (typeof v === 'string' ? Number(v) : v));
  if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  if (Math.abs(x) > 1 || Math.abs(y) > 1) return null;
  return { x, y };
}

function dimension(value: number | null): number | null {
  return value !== null && Number.isInteger(value) && value > 0 && value <= MAX_DIMENSION ? value : null;
}

/**
 * The objects a document embeds by value: an activity's `object` (and a QuoteRequest's `instrument`), a
 * collection's (or its first page's) items.
 */
function embeddedNodes(json: JsonRecord): unknown[] {
  const nodes: unknown[] = [json.object, json.instrument];
  for (const holder of [json, json.first]) {
    if (!isRecord(holder)) continue;
    for (const key of ['orderedItems', 'items']) nodes.push(...[holder[key]].flat());
  }
  return nodes;
}

/**
 * The attachment entries of a status object as its sender wrote them: embedded in the document that brought
 * it (an activity, a featured collection), or the object's own document when it was fetched by itself (Fedify
 * keeps the JSON it parsed at the top level only). Empty when neither holds it.
 */
async function rawAttachments(object: APObject, embeddedIn: APObject | null): Promise<unknown[]> {
  let document: unknown = null;
  if (embeddedIn && object.id) {
    const json = await embeddedIn.toJsonLd().catch(() => null);
    const id = object.id.href;
    document = isRecord(json)
      ? (embeddedNodes(json).find((node) => isRecord(node) && (node.id ?? node['@id']) === id) ?? null)
      : null;
  }
  document ??= await object.toJsonLd().catch(() => null);
  if (!isRecord(document)) return [];
  const list = document.attachment ?? document[AS_ATTACHMENT];
  return Array.isArray(list) ? list : list === undefined || list === null ? [] : [list];
}

/**
 * The media of a remote status object: links to their origin with type, description, blurhash, focal point
 * and size. `embeddedIn`: the document the object arrived in (an activity, a collection), whose JSON holds
 * what Fedify's vocabulary drops.
 */
export async function parseAttachments(
  object: APObject,
  embeddedIn: APObject | null = null,
): Promise<RemoteAttachment[]> {
  // Only the first MAX_ATTACHMENTS embedded entries are looked at: the rest are never read, nor fetched.
  const parsed: Document[] = [];
  let seen = 0;
  for await (const a of object.getAttachments(WITHOUT_FETCHING)) {
    if (++seen > MAX_ATTACHMENTS) break;
    if (a instanceof Document) parsed.push(a);
  }
  if (parsed.length === 0) return [];
  const urls = parsed.map(documentUrl);
  const raw = rawEntriesFor(await rawAttachments(object, embeddedIn), new Set(urls.filter((u) => u !== null)));
  const attachments: RemoteAttachment[] = [];
  parsed.forEach((a, index) => {
    const url = urls[index];
    if (!url || !/^https?:\/\//.test(url)) return;
    const contentType = a.mediaType ?? null;
    const entry = raw.get(url) ?? {};
    const meta: MediaMeta = {};
    const width = dimension(a.width);
    const height = dimension(a.height);
    if (width && height) meta.original = { width, height };
    const focus = acceptableFocus(tootProperty(entry, 'focalPoint'));
    if (focus) meta.focus = focus;
    attachments.push({
      type: mediaType(a, contentType),
      url,
      description: a.name?.toString().slice(0, MAX_DESCRIPTION) || null,
      contentType,
      blurhash: acceptableBlurhash(tootProperty(entry, 'blurhash')),
      meta,
    });
  });
  return attachments;
}

/** The address of a Document's media (Fedify reads `url` as a URL or a Link). */
function documentUrl(document: Document): string | null {
  const link = document.url;
  return link instanceof URL ? link.href : link instanceof Link ? (link.href?.href ?? null) : null;
}

/**
 * The raw entries of the given media addresses (`url` a string, a Link or a list of either, as Fedify reads it),
 * the first of each: found by address, so that entries Fedify skipped (given by address only) shift nothing.
 */
function rawEntriesFor(raw: unknown[], urls: Set<string>): Map<string, JsonRecord> {
  const found = new Map<string, JsonRecord>();
  for (const entry of raw) {
    if (found.size === urls.size) break;
    if (!isRecord(entry)) continue;
    for (const link of [asProperty(entry, 'url')].flat()) {
      const href = typeof link === 'string' ? link : isRecord(link) ? (asProperty(link, 'href') ?? link['@id']) : null;
      const url = typeof href === 'string' && URL.canParse(href) ? new URL(href).href : null;
      if (url && urls.has(url) && !found.has(url)) found.set(url, entry);
    }
  }
  return found;
}

/** The toot terms an attachment's own keys need (Fedify's context for Notes does not define them). */
const ATTACHMENT_CONTEXT = {
  toot: TOOT,
  blurhash: 'toot:blurhash',
  focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
};

/** One compacted attachment with Mastodon's keys (`blurhash`, `focalPoint: [x, y]`) for what compaction wrote as `toot:…`. */
function mastodonAttachmentKeys(node: unknown): unknown {
  if (!isRecord(node) || !('toot:blurhash' in node || 'toot:focalPoint' in node)) return node;
  const { 'toot:blurhash': blurhash, 'toot:focalPoint': focalPoint, ...rest } = node;
  return {
    ...rest,
    ...(blurhash !== undefined ? { blurhash: plain(blurhash) } : {}),
    ...(focalPoint !== undefined ? { focalPoint: plain(focalPoint) } : {}),
  };
}

/** A compacted status's attachments written as Mastodon writes them; the same object when none needed it. */
function mastodonAttachments(status: JsonRecord): JsonRecord {
  const attachment = status.attachment;
  if (attachment === undefined) return status;
  const fixed = Array.isArray(attachment) ? attachment.map(mastodonAttachmentKeys) : mastodonAttachmentKeys(attachment);
  const changed = Array.isArray(fixed)
    ? fixed.some((node, i) => node !== (attachment as unknown[])[i])
    : fixed !== attachment;
  return changed ? { ...status, attachment: fixed } : status;
}

/**
 * A compacted status, or an activity carrying one, with its attachments written as Mastodon writes them.
 * Fedify compacts with its own context, where blurhash and focalPoint are not terms (`toot:blurhash`);
 * Mastodon, Misskey and Akkoma read the plain keys, so they get them back, and the document's context the
 * terms that define them (the same JSON-LD meaning). A context inside the attachment would do too, but
 * Fedify's reader then no longer sees the attachment's type.
 */
export function withMastodonAttachmentKeys(json: unknown): unknown {
  if (!isRecord(json)) return json;
  const status = isRecord(json.object) ? json.object : json;
  const fixedStatus = mastodonAttachments(status);
  if (fixedStatus === status) return json;
  const fixed = status === json ? fixedStatus : { ...json, object: fixedStatus };
  const context = json['@context'];
  return context === undefined
    ? fixed
    : { ...fixed, '@context': [...(Array.isArray(context) ? context : [context]), ATTACHMENT_CONTEXT] };
}

type ToJsonLdOptions = Parameters<Document['toJsonLd']>[0];

/** A Document that carries Mastodon's blurhash and focal point (expanded here; see withMastodonAttachmentKeys). */
class MastodonDocument extends Document {
  readonly #blurhash: string | null;
  readonly #focus: [number, number] | null;

  constructor(
    values: ConstructorParameters<typeof Document>[0],
    extras: { blurhash: string | null; focus: { x: number; y: number } | null },
  ) {
    super(values);
    this.#blurhash = extras.blurhash;
    this.#focus = extras.focus ? [extras.focus.x, extras.focus.y] : null;
  }

  override async toJsonLd(options: ToJsonLdOptions = {}): Promise<unknown> {
    if (options.format !== 'expand') return super.toJsonLd(options);
    const json = await super.toJsonLd(options);
    const node = Array.isArray(json) ? json[0] : json;
    if (!isRecord(node)) return json;
    if (this.#blurhash) node[`${TOOT}blurhash`] = [{ '@value': this.#blurhash }];
    if (this.#focus) node[`${TOOT}focalPoint`] = [{ '@list': this.#focus.map((v) => ({ '@value': v })) }];
    return json;
  }
}

/** A Fedify class whose compacted form gets Mastodon's attachment keys (see withMastodonAttachmentKeys). */
function withMastodonAttachments<
  T extends new (
    ...args: any[]
  ) => { toJsonLd(options?: ToJsonLdOptions): Promise<unknown> },
>(Base: T) {
  return class extends Base {
    override async toJsonLd(options: ToJsonLdOptions = {}): Promise<unknown> {
      const json = await super.toJsonLd(options);
      return options.format === 'expand' ? json : withMastodonAttachmentKeys(json);
    }
  };
}

/**
 * Our Notes and polls (served, in the outbox and featured collection), and the Create and Update that carry
 * them: those are sent compacted as a whole, without the Note's own toJsonLd.
 */
export const MastodonNote = withMastodonAttachments(Note);
export const MastodonQuestion = withMastodonAttachments(Question);
export const MastodonCreate = withMastodonAttachments(Create);
export const MastodonUpdate = withMastodonAttachments(Update);

/** The Document of one of our attachments, as Mastodon writes it. */
export function attachmentDocument(media: MediaRow, url: string): Document {
  const original = media.meta.original;
  return new MastodonDocument(
    {
      mediaType: media.contentType,
      url: new URL(url),
      name: media.description,
      width: original?.width ?? null,
      height: original?.height ?? null,
    },
    { blurhash: media.blurhash, focus: media.meta.focus ?? null },
  );
}

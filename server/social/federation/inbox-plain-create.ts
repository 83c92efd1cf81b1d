/*
 * The hot shared-inbox Create read without Fedify's vocabulary: the verifier's worker expands a verified activity
 * (inbox-verifier.ts) and, when it is a Create of one plain Note this reader understands whole, hands the note's
 * fields over as plain JSON, its content sanitised already. The queued message carries them, and its listener (inbox-plain-listener.ts) stores the
 * post from them without building Fedify's objects and dates on the main thread. Anything else it meets (another
 * type, an attachment, a quote, an emoji, a poll vote, a value given in a shape it does not read) makes it answer
 * null, and the activity goes through Fedify's reading and listeners as before.
 */

/** A Create's status as the worker read it from the activity's JSON-LD expansion: addresses normalised as URLs. */
export interface PlainStatusFields {
  id: string;
  attributedTo: string[];
  /** The first content ('' when none), sanitised by the reader's `sanitize` (sanitizeRemoteHtml). */
  content: string;
  /** The length of that content as it came, before sanitising (the longest kept is bounded). */
  contentLength: number;
  /** The base language of the first content given with one. */
  language: string | null;
  summary: string;
  sensitive: boolean;
  to: string[];
  cc: string[];
  /** The first url, when it is http(s). */
  url: string | null;
  inReplyTo: string | null;
  /** Mentions' hrefs and hashtags' names, in order (at most MAX_PLAIN_TAGS in all). */
  mentions: string[];
  hashtags: string[];
  /** Epoch milliseconds. */
  published: number | null;
  /** interactionPolicy.canQuote.automaticApproval. */
  quoteApprovals: string[];
}

export interface PlainCreate {
  /** The Create's id (the object's origin is its origin). */
  activityId: string;
  actor: string;
  object: PlainStatusFields;
}

/** An inbox message as the intake queues a plain Create (inbox-handover.ts): Fedify's, with the worker's reading. */
export interface PlainCreateMessage {
  type: 'inbox';
  baseUrl: string;
  identifier: null;
  activity: object;
  plainCreate: PlainCreate;
}

export function isPlainCreateMessage(message: unknown): message is PlainCreateMessage {
  const m = message as Partial<PlainCreateMessage> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.type === 'inbox' &&
    m.identifier === null &&
    typeof m.baseUrl === 'string' &&
    typeof m.plainCreate === 'object' &&
    m.plainCreate !== null
  );
}

/** Reads a Create of a plain Note from its JSON-LD expansion (see plainCreateReader), or null. */
export type PlainCreateReader = (expansion: unknown) => PlainCreate | null;

/**
 * A reader of a Create of a plain Note from its JSON-LD expansion (jsonld.js's, as Fedify's reader makes it): null
 * when anything in it is not what this reader reads the way Fedify's reading does. Made once (its helpers with it).
 * Self-contained: the verifier's worker evaluates its source.
 */
export function plainCreateReader(sanitize: (html: string) => string): PlainCreateReader {
  const AS = 'https://www.w3.org/ns/activitystreams#';
  const GTS = 'https://gotosocial.org/ns#';
  const MAX_PLAIN_TAGS = 64;
  // Properties of the note that are read, and those Fedify's listener never looks at (ignored here as well).
  const READ = new Set([
    '@id',
    '@type',
    `${AS}attributedTo`,
    `${AS}content`,
    `${AS}summary`,
    `${AS}sensitive`,
    `${AS}to`,
    `${AS}cc`,
    `${AS}url`,
    `${AS}inReplyTo`,
    `${AS}tag`,
    `${AS}published`,
    `${AS}attachment`,
    `${GTS}interactionPolicy`,
  ]);
  const IGNORED = new Set([
    `${AS}updated`,
    `${AS}replies`,
    `${AS}likes`,
    `${AS}shares`,
    `${AS}context`,
    'http://ostatus.org#atomUri',
    'http://ostatus.org#inReplyToAtomUri',
    'http://ostatus.org#conversation',
  ]);
  class Unread extends Error {}
  const unread = (): never => {
    throw new Unread();
  };
  const node = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : unread();
  const values = (n: Record<string, unknown>, key: string): unknown[] => {
    const v = n[key];
    if (v === undefined) return [];
    return Array.isArray(v) ? v : unread();
  };
  const onlyType = (n: Record<string, unknown>, type: string): boolean => {
    const types = n['@type'];
    return Array.isArray(types) && types.length === 1 && types[0] === type;
  };
  const href = (s: unknown): string => (typeof s === 'string' ? (URL.parse(s)?.href ?? unread()) : unread());
  // A reference given as {"@id"} alone (an embedded node is read by Fedify's reader).
  const ref = (v: unknown): string => {
    const n = node(v);
    return Object.keys(n).length === 1 ? href(n['@id']) : unread();
  };
  const refs = (n: Record<string, unknown>, key: string): string[] => values(n, key).map(ref);
  const firstRef = (n: Record<string, unknown>, key: string): string | null => {
    const all = refs(n, key);
    return all.length > 0 ? all[0] : null;
  };
  // Strings, each {"@value"} with an optional "@language" and nothing else.
  const texts = (n: Record<string, unknown>, key: string): { value: string; language: string | null }[] =>
    values(n, key).map((v) => {
      const t = node(v);
      const keys = Object.keys(t);
      if (typeof t['@value'] !== 'string') unread();
      const language = t['@language'];
      if (keys.length === 1) return { value: t['@value'] as string, language: null };
      if (keys.length === 2 && typeof language === 'string')
        return { value: t['@value'] as string, language: new Intl.Locale(language).baseName };
      return unread();
    });
  const firstText = (n: Record<string, unknown>, key: string): string | null => texts(n, key)[0]?.value ?? null;
  const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
  const date = (n: Record<string, unknown>, key: string): number | null => {
    const all = values(n, key);
    if (all.length === 0) return null;
    const d = node(all[0]);
    const value = d['@value'];
    if (Object.keys(d).length !== 2 || d['@type'] !== 'http://www.w3.org/2001/XMLSchema#dateTime') unread();
    if (typeof value !== 'string' || !DATE.test(value) || Number(value.slice(0, 4)) < 1970) unread();
    const ms = Date.parse(value as string);
    return Number.isFinite(ms) ? ms : unread();
  };
  return (expansion) => {
    try {
      if (!Array.isArray(expansion) || expansion.length !== 1) return null;
      const create = node(expansion[0]);
      if (!onlyType(create, `${AS}Create`)) return null;
      const activityId = href(create['@id']);
      const actors = refs(create, `${AS}actor`);
      const objects = values(create, `${AS}object`);
      if (actors.length === 0 || objects.length !== 1) return null;
      const note = node(objects[0]);
      if (!onlyType(note, `${AS}Note`)) return null;
      for (const key of Object.keys(note)) if (!READ.has(key) && !IGNORED.has(key)) return null;
      const id = href(note['@id']);
      // Fedify's reader does not take an embedded object from another origin than the activity's: it fetches it.
      if (new URL(id).origin !== new URL(activityId).origin) return null;
      if (values(note, `${AS}attachment`).length > 0) return null;
      const contents = texts(note, `${AS}content`);
      const flags = values(note, `${AS}sensitive`);
      const sensitive = flags.length > 0 ? node(flags[0]) : { '@value': false };
      if (Object.keys(sensitive).length !== 1 || typeof sensitive['@value'] !== 'boolean') return null;
      const mentions: string[] = [];
      const hashtags: string[] = [];
      const tags = values(note, `${AS}tag`);
      if (tags.length > MAX_PLAIN_TAGS) return null;
      for (const t of tags) {
        const tag = node(t);
        if (onlyType(tag, `${AS}Mention`)) {
          const to = firstRef(tag, `${AS}href`);
          if (to !== null) mentions.push(to);
        } else if (onlyType(tag, `${AS}Hashtag`)) {
          const name = firstText(tag, `${AS}name`);
          if (name !== null) hashtags.push(name);
        } else return null;
      }
      const policies = values(note, `${GTS}interactionPolicy`);
      const canQuote = policies.length > 0 ? values(node(policies[0]), `${GTS}canQuote`) : [];
      const quoteApprovals = canQuote.length > 0 ? refs(node(canQuote[0]), `${GTS}automaticApproval`) : [];
      const url = firstRef(note, `${AS}url`);
      const content = contents[0]?.value ?? '';
      return {
        activityId,
        actor: actors[0],
        object: {
          id,
          attributedTo: refs(note, `${AS}attributedTo`),
          content: sanitize(content),
          contentLength: content.length,
          language: contents.find((c) => c.language !== null)?.language?.split('-')[0] ?? null,
          summary: firstText(note, `${AS}summary`) ?? '',
          sensitive: sensitive['@value'] as boolean,
          to: refs(note, `${AS}to`),
          cc: refs(note, `${AS}cc`),
          url: url !== null && /^https?:\/\//.test(url) ? url : null,
          inReplyTo: firstRef(note, `${AS}inReplyTo`),
          mentions,
          hashtags,
          published: date(note, `${AS}published`),
          quoteApprovals,
        },
      };
    } catch (err) {
      // A shape not read here (or a language tag Intl refuses): Fedify's reading decides.
      if (err instanceof Unread || err instanceof RangeError) return null;
      throw err;
    }
  };
}

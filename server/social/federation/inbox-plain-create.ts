/*
 * The hot shared-inbox Create read without Fedify's vocabulary: the verifier's worker expands a verified activity
 * (inbox-verifier.ts) and, when it is a Create of one plain Note this reader understands whole, hands the note's
 * fields over as plain JSON, its content sanitised already. The queued message carries them, and its listener
 * (inbox-plain-listener.ts) stores the post from them without building Fedify's objects and dates on the main
 * thread. Anything else it meets (another type, an attachment, a quote, an emoji, a poll vote, a value given in a
 * shape it does not read) makes it answer null, and the activity goes through Fedify's reading and listeners as
 * before. What it takes, Fedify's reading would take too (every property of the Create and the Note is checked as
 * that reading decodes it, those its listener does not use included), so the worker leaves that reading out:
 * inbox-plain-create-refusals.test.ts replaces each value of Mastodon's Creates with ones Fedify refuses.
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
  // Properties of the note that are read.
  const READ = new Set([
    '@id',
    '@type',
    `${GTS}interactionPolicy`,
    ...['attributedTo', 'content', 'summary', 'sensitive', 'to', 'cc', 'url', 'inReplyTo', 'tag', 'published'].map(
      (name) => `${AS}${name}`,
    ),
    `${AS}attachment`,
  ]);
  // Properties Fedify's reading never looks at (neither does this one), and those it reads though its listener
  // does not use: this reader checks the latter as Fedify's reading would decode them (see `decodable`).
  const UNREAD = new Set([
    'http://ostatus.org#atomUri',
    'http://ostatus.org#inReplyToAtomUri',
    'http://ostatus.org#conversation',
  ]);
  const COLLECTIONS = [`${AS}replies`, `${AS}likes`, `${AS}shares`];
  const CHECKED = new Set([`${AS}updated`, `${AS}context`, ...COLLECTIONS]);
  // The Create's own properties (Mastodon signs public ones with an LD signature, which Fedify does not read).
  const CREATE_KEYS = new Set([
    ...['@id', '@type', 'https://w3id.org/security#signature'],
    ...['actor', 'object', 'to', 'cc', 'published'].map((name) => `${AS}${name}`),
  ]);
  // A blank node identifier as a property (a term its context maps to one): no vocabulary reads it.
  const unreadKey = (key: string) => UNREAD.has(key) || key.startsWith('_:');
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
  const DATE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;
  // Each date as Fedify's reading takes it (Temporal's ISO instants): Date.parse alone would take 24:00 or 30 February.
  const dates = (n: Record<string, unknown>, key: string): number[] =>
    values(n, key).map((v) => {
      const d = node(v);
      const value = d['@value'];
      if (Object.keys(d).length !== 2 || d['@type'] !== 'http://www.w3.org/2001/XMLSchema#dateTime') unread();
      const parts = typeof value === 'string' ? DATE.exec(value) : null;
      if (parts === null) return unread();
      const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number);
      const monthDays = new Date(Date.UTC(year, month, 0)).getUTCDate();
      const offsetFits = parts[9] === undefined || (Number(parts[9]) < 24 && Number(parts[10]) < 60);
      if (year < 1970 || month < 1 || month > 12 || day < 1 || day > monthDays) unread();
      if (hour > 23 || minute > 59 || second > 59 || !offsetFits) unread();
      const ms = Date.parse(value as string);
      return Number.isFinite(ms) ? ms : unread();
    });
  const date = (n: Record<string, unknown>, key: string): number | null => dates(n, key)[0] ?? null;
  const onlyKeys = (n: Record<string, unknown>, keys: string[]) => {
    for (const key of Object.keys(n)) if (!keys.includes(key) && !key.startsWith('_:')) unread();
  };
  // A collection (replies, likes, shares) as Mastodon embeds one: its id, a total, a first page of addresses.
  const collection = (v: unknown): void => {
    const c = node(v);
    if (Object.keys(c).length === 1) return void ref(c);
    if (!onlyType(c, `${AS}Collection`) && !onlyType(c, `${AS}OrderedCollection`)) unread();
    onlyKeys(c, ['@id', '@type', `${AS}totalItems`, `${AS}first`]);
    if (c['@id'] !== undefined) href(c['@id']);
    for (const total of values(c, `${AS}totalItems`)) {
      const t = node(total);
      if (Object.keys(t).length !== 2 || t['@type'] !== 'http://www.w3.org/2001/XMLSchema#nonNegativeInteger') unread();
      if (!Number.isSafeInteger(t['@value']) || (t['@value'] as number) < 0) unread();
    }
    for (const first of values(c, `${AS}first`)) {
      const page = node(first);
      if (Object.keys(page).length === 1) {
        ref(page);
        continue;
      }
      if (!onlyType(page, `${AS}CollectionPage`)) unread();
      onlyKeys(page, ['@id', '@type', `${AS}next`, `${AS}partOf`, `${AS}items`]);
      if (page['@id'] !== undefined) href(page['@id']);
      refs(page, `${AS}next`);
      refs(page, `${AS}partOf`);
      refs(page, `${AS}items`);
    }
  };
  const RULES = ['canQuote', 'canLike', 'canReply', 'canAnnounce'].map((rule) => `${GTS}${rule}`);
  const APPROVALS = ['automaticApproval', 'manualApproval'].map((approval) => `${GTS}${approval}`);
  // The interaction policy's canQuote.automaticApproval, every rule of it in the shape Fedify's reading reads.
  const quoteApprovalsOf = (policies: unknown[]): string[] => {
    let approvals: string[] = [];
    policies.forEach((p, i) => {
      const policy = node(p);
      onlyKeys(policy, RULES);
      for (const rule of RULES)
        values(policy, rule).forEach((r, j) => {
          const given = node(r);
          onlyKeys(given, APPROVALS);
          for (const approval of APPROVALS) {
            const addresses = refs(given, approval);
            if (i === 0 && j === 0 && rule === RULES[0] && approval === APPROVALS[0]) approvals = addresses;
          }
        });
    });
    return approvals;
  };
  // What Fedify's reading decodes though its listener does not use it: refused (left to Fedify) unless it is in a
  // shape that reading cannot fail on.
  const decodable = (note: Record<string, unknown>): void => {
    dates(note, `${AS}updated`);
    refs(note, `${AS}context`);
    for (const key of COLLECTIONS) values(note, key).forEach(collection);
  };
  return (expansion) => {
    try {
      if (!Array.isArray(expansion) || expansion.length !== 1) return null;
      const create = node(expansion[0]);
      if (!onlyType(create, `${AS}Create`)) return null;
      for (const key of Object.keys(create)) if (!CREATE_KEYS.has(key) && !unreadKey(key)) return null;
      refs(create, `${AS}to`);
      refs(create, `${AS}cc`);
      dates(create, `${AS}published`);
      const activityId = href(create['@id']);
      const actors = refs(create, `${AS}actor`);
      const objects = values(create, `${AS}object`);
      if (actors.length === 0 || objects.length !== 1) return null;
      const note = node(objects[0]);
      if (!onlyType(note, `${AS}Note`)) return null;
      for (const key of Object.keys(note)) if (!READ.has(key) && !CHECKED.has(key) && !unreadKey(key)) return null;
      decodable(note);
      const id = href(note['@id']);
      // Fedify's reader does not take an embedded object from another origin than the activity's: it fetches it.
      if (new URL(id).origin !== new URL(activityId).origin) return null;
      if (values(note, `${AS}attachment`).length > 0) return null;
      const contents = texts(note, `${AS}content`);
      const flags = values(note, `${AS}sensitive`).map((f) => {
        const flag = node(f);
        return Object.keys(flag).length === 1 && typeof flag['@value'] === 'boolean' ? flag['@value'] : unread();
      });
      const mentions: string[] = [];
      const hashtags: string[] = [];
      const tags = values(note, `${AS}tag`);
      if (tags.length > MAX_PLAIN_TAGS) return null;
      for (const t of tags) {
        const tag = node(t);
        onlyKeys(tag, ['@type', `${AS}href`, `${AS}name`]);
        const to = firstRef(tag, `${AS}href`);
        const name = firstText(tag, `${AS}name`);
        if (onlyType(tag, `${AS}Mention`)) {
          if (to !== null) mentions.push(to);
        } else if (onlyType(tag, `${AS}Hashtag`)) {
          if (name !== null) hashtags.push(name);
        } else return null;
      }
      const quoteApprovals = quoteApprovalsOf(values(note, `${GTS}interactionPolicy`));
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
          sensitive: flags[0] ?? false,
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

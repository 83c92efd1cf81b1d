import { LRUCache } from 'lru-cache';
import {
  shortcodesIn,
  type Account,
  type CustomEmojiRow,
  type MediaRow,
  type QuoteRow,
  type SocialStore,
  type StatusRow,
} from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import type { AccountPresenter } from './account.ts';
import { serializeEmoji } from './emoji.ts';
import { serializeMedia } from './media.ts';
import { serializePreviewCard } from './preview-card.ts';

/** The viewer-independent parts of a status (media, mentions, tags, emojis, application, quote, card). */
export interface FixedParts {
  media_attachments: Record<string, unknown>[];
  mentions: Record<string, unknown>[];
  tags: { name: string; url: string }[];
  emojis: Record<string, unknown>[];
  application: { name: string; website: string | null } | null;
  /** What the status quotes, if anything (its state is shown per viewer). */
  quote: QuoteRow | null;
  card: Record<string, unknown> | null;
  /** The status's row-dependent fields, made on first use. */
  stable?: StableParts;
}

/** The row-dependent fields of a status as an object and as JSON text without braces. */
export interface StableParts {
  json: Record<string, unknown> & { id: string };
  text: string;
}

/** The most the fixed parts cache may hold (estimated bytes). */
const FIXED_PARTS_BYTES = 32 * 1024 * 1024;

/** What an entry is charged: its parts as JSON, and the status's text and addresses its `stable` parts copy twice. */
function fixedPartsBytes(parts: FixedParts, s: StatusRow): number {
  const { stable: _stable, ...own } = parts;
  const row = s.content.length + s.spoilerText.length + (s.uri?.length ?? 0) + (s.url?.length ?? 0);
  return 2 * (2 * JSON.stringify(own).length + 2 * row) + 400;
}

/** Reads and caches the fixed parts of statuses, per status version. */
export class StatusFixedParts {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly accounts: AccountPresenter;
  /**
   * Bounded in bytes as well as entries: a status with many attachments, mentions or a long text weighs
   * more. Each entry is charged (UTF-16) for its parts as JSON and for the row-dependent text and object
   * made from it later (`stable`: the content and addresses twice), so 32 MiB holds about 20,000 usual ones.
   */
  private readonly fixedCache = new LRUCache<string, FixedParts>({ max: 20_000, maxSize: FIXED_PARTS_BYTES });
  private readonly fixedByRow = new WeakMap<StatusRow, { base: string; parts: FixedParts }>();

  constructor(store: SocialStore, urls: SocialUrls, accounts: AccountPresenter) {
    this.store = store;
    this.urls = urls;
    this.accounts = accounts;
  }

  /**
   * Media, mentions, tags, application, quote and link card of statuses: an edit bumps the status's version
   * (updated_at), and so does any change of its quote or card (triggers, migration 20), so they are cached
   * per status version and queried only for statuses not seen yet.
   */
  of(statuses: readonly StatusRow[], authors: Map<string, Account>): Map<string, FixedParts> {
    const result = new Map<string, FixedParts>();
    const key = (s: StatusRow) => `${this.urls.base}|${s.id}|${s.updatedAt}`;
    const misses: StatusRow[] = [];
    for (const s of statuses) {
      // A frozen row (the listings' row cache) is one version of the status: found by identity, no key to build.
      const memo = this.fixedByRow.get(s);
      const fromRow = memo?.base === this.urls.base ? memo.parts : undefined;
      const hit = fromRow ?? this.fixedCache.get(key(s));
      if (hit) result.set(s.id, hit);
      else misses.push(s);
      if (hit && !fromRow && Object.isFrozen(s)) this.fixedByRow.set(s, { base: this.urls.base, parts: hit });
    }
    if (misses.length === 0) return result;
    const ids = misses.map((s) => s.id);
    const mentions = this.store.statuses.mentions(ids);
    const mentioned = new Map(
      this.store.accounts
        .byIds([...new Set(mentions.map((m) => m.accountId))].filter((id) => !authors.has(id)))
        .map((a) => [a.id, a]),
    );
    const media = this.store.media.forStatuses(ids);
    const tags = this.store.statuses.tags(ids);
    const emojis = this.customEmojis(misses, authors);
    const quotes = this.store.quotes.ofStatuses(ids);
    const cards = this.store.previewCards.forStatuses(ids);
    for (const s of misses) {
      const card = cards.get(s.id);
      let application: FixedParts['application'] = null;
      if (s.applicationId && s.local) {
        const app = this.store.oauth.appById(s.applicationId);
        if (app) application = { name: app.name, website: app.website };
      }
      const parts: FixedParts = {
        media_attachments: (media.get(s.id) ?? []).map((m: MediaRow) =>
          serializeMedia(this.urls, m, this.accounts.remoteMedia),
        ),
        mentions: mentions
          .filter((m) => m.statusId === s.id && !m.silent)
          .flatMap((m) => {
            const a = authors.get(m.accountId) ?? mentioned.get(m.accountId);
            return a
              ? [{ id: a.id, username: a.username, url: this.accounts.profileUrl(a), acct: this.accounts.acct(a) }]
              : [];
          }),
        tags: (tags.get(s.id) ?? []).map((name) => ({ name, url: this.urls.tagUrl(name) })),
        emojis: emojis.get(s.id) ?? [],
        application,
        quote: quotes.get(s.id) ?? null,
        card: card ? serializePreviewCard(this.urls, card) : null,
      };
      this.fixedCache.set(key(s), parts, { size: fixedPartsBytes(parts, s) });
      if (Object.isFrozen(s)) this.fixedByRow.set(s, { base: this.urls.base, parts });
      result.set(s.id, parts);
    }
    return result;
  }

  /** Custom emojis each status uses: `:shortcode:`s of its text that its author's server has (one query per server). */
  private customEmojis(
    statuses: readonly StatusRow[],
    authors: Map<string, Account>,
  ): Map<string, Record<string, unknown>[]> {
    const used = new Map<string, string[]>();
    const byDomain = new Map<string | null, Set<string>>();
    for (const s of statuses) {
      const codes = shortcodesIn(s.content, s.spoilerText);
      if (codes.length === 0) continue;
      used.set(s.id, codes);
      const domain = authors.get(s.accountId)?.domain ?? null;
      const set = byDomain.get(domain) ?? new Set<string>();
      codes.forEach((c) => set.add(c));
      byDomain.set(domain, set);
    }
    const known = new Map<string, CustomEmojiRow>();
    for (const [domain, codes] of byDomain)
      for (const e of this.store.emojis.forShortcodes(domain, [...codes]))
        known.set(`${domain ?? ''}:${e.shortcode}`, e);
    const result = new Map<string, Record<string, unknown>[]>();
    for (const s of statuses) {
      const domain = authors.get(s.accountId)?.domain ?? null;
      const list = (used.get(s.id) ?? []).flatMap((code) => {
        const e = known.get(`${domain ?? ''}:${code}`);
        return e ? [serializeEmoji(this.urls, e)] : [];
      });
      if (list.length) result.set(s.id, list);
    }
    return result;
  }
}

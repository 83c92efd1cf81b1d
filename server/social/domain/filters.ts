import { DetailsCollector, notFound, refused } from '../errors.ts';
import type { SocialEvents } from '../events.ts';
import {
  FILTER_CONTEXTS,
  type Account,
  type FilterAction,
  type FilterContext,
  type FilterRow,
  type SocialStore,
  type StatusRow,
} from '../store/index.ts';
import { htmlToText } from '../text/index.ts';

/** Mastodon's limits: filters per user, keywords and statuses per filter, lengths. */
export const FILTER_LIMITS = { filters: 100, keywords: 100, statuses: 100, title: 255, keyword: 512 };

export interface KeywordAttribute {
  id?: string;
  keyword?: string;
  wholeWord?: boolean;
  destroy?: boolean;
}

export interface FilterInput {
  title?: string;
  context?: string[];
  action?: string;
  /** Seconds from now; null or 0 removes the expiry. */
  expiresIn?: number | null;
  keywords?: KeywordAttribute[];
}

/** One filter that applies to a status: which of its keywords matched, and whether the status itself is filtered. */
export interface FilterMatch {
  filter: FilterRow;
  keywordMatches: string[];
  statusMatches: string[];
}

interface CompiledFilter {
  row: FilterRow;
  keywords: { text: string; pattern: RegExp }[];
  statusIds: Set<string>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A keyword as Mastodon matches it: case-insensitively; a whole-word keyword must start and end at word
 * boundaries where it starts and ends with a word character.
 */
function keywordPattern(keyword: string, wholeWord: boolean): RegExp {
  const body = escapeRegExp(keyword.trim());
  if (!wholeWord) return new RegExp(body, 'iu');
  const start = /^[\p{L}\p{N}_]/u.test(keyword.trim()) ? '(?<![\\p{L}\\p{N}_])' : '';
  const end = /[\p{L}\p{N}_]$/u.test(keyword.trim()) ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`${start}${body}${end}`, 'iu');
}

/**
 * Content filters: editing them (each edit one `filters.changed` event, after commit) and applying them to
 * statuses server-side: `filtered` on every status a filter matches, statuses of `hide` filters removed
 * from timelines, notifications and streams. Compiled filters are cached per account until they change.
 */
export class FilterService {
  private readonly store: SocialStore;
  private readonly events: SocialEvents;
  private readonly compiled = new Map<string, CompiledFilter[]>();
  /**
   * Moves each time a compiled entry is dropped (a filter written, its event delivered after commit): what was
   * rendered with filters compiled before can be told apart, since a read may see the rows before the event.
   */
  generation = 0;

  constructor(store: SocialStore, events: SocialEvents) {
    this.store = store;
    this.events = events;
    events.on('filters.changed', (e) => {
      this.compiled.delete(e.accountId);
      this.generation++;
    });
  }

  // ---- applying

  private active(accountId: string): CompiledFilter[] {
    let filters = this.compiled.get(accountId);
    if (!filters) {
      filters = this.store.filters.ofAccount(accountId).map((row) => ({
        row,
        keywords: row.keywords.map((k) => ({ text: k.keyword, pattern: keywordPattern(k.keyword, k.wholeWord) })),
        statusIds: new Set(row.statuses.map((s) => s.statusId)),
      }));
      if (this.compiled.size > 10_000) this.compiled.clear();
      this.compiled.set(accountId, filters);
    }
    const now = this.store.now();
    return filters.filter((f) => f.row.expiresAt === null || f.row.expiresAt > now);
  }

  /** When the first of the viewer's active filters expires (null: none does): matching changes then with no write. */
  nextExpiry(viewerId: string): number | null {
    let next: number | null = null;
    for (const f of this.active(viewerId))
      if (f.row.expiresAt !== null && (next === null || f.row.expiresAt < next)) next = f.row.expiresAt;
    return next;
  }

  /** Whether the viewer has any filter (rendering for everyone else skips the matching). */
  any(viewerId: string): boolean {
    return this.active(viewerId).length > 0;
  }

  /** The words a status is matched by: content warning, text, media descriptions, poll options. */
  private searchable(status: StatusRow): string {
    const media = this.store.media.forStatuses([status.id]).get(status.id) ?? [];
    const poll = status.pollId ? this.store.polls.byId(status.pollId) : null;
    return [
      status.spoilerText,
      htmlToText(status.content),
      ...media.map((m) => m.description ?? ''),
      ...(poll?.options ?? []),
    ].join('\n');
  }

  /**
   * The viewer's filters matching a status (its reblogged status for a reblog), in `context` when given
   * (all contexts otherwise, as Mastodon does for a single status).
   */
  matches(viewerId: string, status: StatusRow, context?: FilterContext): FilterMatch[] {
    const filters = this.active(viewerId).filter((f) => !context || f.row.context.includes(context));
    if (filters.length === 0 || status.accountId === viewerId) return [];
    let text: string | null = null;
    const result: FilterMatch[] = [];
    for (const f of filters) {
      const statusMatches = f.statusIds.has(status.id) ? [status.id] : [];
      const keywordMatches: string[] = [];
      if (f.keywords.length) {
        text ??= this.searchable(status);
        for (const k of f.keywords) if (k.pattern.test(text)) keywordMatches.push(k.text);
      }
      if (keywordMatches.length || statusMatches.length) result.push({ filter: f.row, keywordMatches, statusMatches });
    }
    return result;
  }

  /** Whether a `hide` filter of the viewer's removes the status in this context. */
  hides(viewerId: string, status: StatusRow, context: FilterContext): boolean {
    return this.matches(viewerId, status, context).some((m) => m.filter.action === 'hide');
  }

  /** `rows` without those a hide filter removes for the viewer (reblogs judged by what they reblog). */
  visible<T>(
    viewer: Account | null,
    rows: readonly T[],
    statusOf: (row: T) => StatusRow | null,
    context: FilterContext,
  ): T[] {
    if (!viewer || !this.any(viewer.id)) return [...rows];
    const proper = this.store.statuses.byIds(rows.flatMap((r) => statusOf(r)?.reblogOfId ?? []));
    const byId = new Map(proper.map((s) => [s.id, s]));
    return rows.filter((r) => {
      const s = statusOf(r);
      if (!s) return true;
      return !this.hides(viewer.id, s.reblogOfId ? (byId.get(s.reblogOfId) ?? s) : s, context);
    });
  }

  // ---- editing

  private checked(
    input: FilterInput,
    current: FilterRow | null,
  ): { title: string; context: FilterContext[]; action: FilterAction; expiresAt: number | null } {
    const details = new DetailsCollector();
    const title = (input.title ?? current?.title ?? '').trim();
    if (!title) details.add('title', 'ERR_BLANK', "can't be blank");
    else if ([...title].length > FILTER_LIMITS.title)
      details.add('title', 'ERR_TOO_LONG', `is too long (maximum is ${FILTER_LIMITS.title} characters)`);
    const context = input.context ?? current?.context ?? [];
    if (context.length === 0) details.add('context', 'ERR_BLANK', "can't be blank");
    const unknown = context.filter((c) => !(FILTER_CONTEXTS as readonly string[]).includes(c));
    if (unknown.length) details.add('context', 'ERR_INCLUSION', `is not included in the list: ${unknown.join(', ')}`);
    const action = input.action ?? current?.action ?? 'warn';
    if (!['warn', 'hide', 'blur'].includes(action))
      details.add('filter_action', 'ERR_INCLUSION', 'is not included in the list');
    let expiresAt = current?.expiresAt ?? null;
    if (input.expiresIn !== undefined) {
      if (input.expiresIn === null || input.expiresIn === 0) expiresAt = null;
      else if (!Number.isFinite(input.expiresIn) || input.expiresIn < 0)
        details.add('expires_in', 'ERR_INVALID', 'must be a number of seconds');
      else expiresAt = this.store.now() + input.expiresIn * 1000;
    }
    details.throwIfAny();
    return { title, context: [...new Set(context)] as FilterContext[], action: action as FilterAction, expiresAt };
  }

  private checkKeyword(keyword: string | undefined, details: DetailsCollector): string | null {
    const k = (keyword ?? '').trim();
    if (!k) details.add('keyword', 'ERR_BLANK', "can't be blank");
    else if ([...k].length > FILTER_LIMITS.keyword)
      details.add('keyword', 'ERR_TOO_LONG', `is too long (maximum is ${FILTER_LIMITS.keyword} characters)`);
    else return k;
    return null;
  }

  ownFilter(me: Account, id: string): FilterRow {
    const filter = this.store.filters.byId(me.id, id);
    if (!filter) throw notFound();
    return filter;
  }

  private changed(accountId: string): void {
    this.events.emit('filters.changed', { accountId });
  }

  create(me: Account, input: FilterInput): FilterRow {
    const fields = this.checked(input, null);
    if (this.store.filters.count(me.id) >= FILTER_LIMITS.filters)
      throw refused(`you cannot have more than ${FILTER_LIMITS.filters} filters`);
    const id = this.store.transaction(() => {
      const id = this.store.filters.create(me.id, fields);
      this.applyKeywords(id, [], input.keywords ?? []);
      this.changed(me.id);
      return id;
    });
    return this.store.filters.byId(me.id, id)!;
  }

  /** Changes a filter and, in the same commit, its keywords (`keywords_attributes`: new, edited, `_destroy`ed). */
  update(me: Account, id: string, input: FilterInput): FilterRow {
    const current = this.ownFilter(me, id);
    const fields = this.checked(input, current);
    this.store.transaction(() => {
      this.store.filters.update(id, fields);
      this.applyKeywords(
        id,
        current.keywords.map((k) => k.id),
        input.keywords ?? [],
      );
      this.changed(me.id);
    });
    return this.store.filters.byId(me.id, id)!;
  }

  private applyKeywords(filterId: string, existing: string[], attributes: KeywordAttribute[]): void {
    const details = new DetailsCollector();
    let count = existing.length;
    for (const a of attributes) {
      if (a.id !== undefined && !existing.includes(a.id)) throw notFound();
      if (a.id !== undefined && a.destroy) {
        this.store.filters.deleteKeyword(a.id);
        count--;
        continue;
      }
      if (a.destroy) continue;
      const keyword = this.checkKeyword(
        a.keyword ?? (a.id ? this.store.filters.keyword(a.id)?.keyword : undefined),
        details,
      );
      if (!keyword) continue;
      if (a.id !== undefined)
        this.store.filters.updateKeyword(a.id, keyword, a.wholeWord ?? this.store.filters.keyword(a.id)!.wholeWord);
      else {
        this.store.filters.addKeyword(filterId, keyword, a.wholeWord ?? true);
        count++;
      }
    }
    if (count > FILTER_LIMITS.keywords)
      details.add('keywords', 'ERR_TOO_LONG', `cannot be more than ${FILTER_LIMITS.keywords}`);
    details.throwIfAny();
  }

  delete(me: Account, id: string): void {
    this.ownFilter(me, id);
    this.store.transaction(() => {
      this.store.filters.delete(id);
      this.changed(me.id);
    });
  }

  addKeyword(me: Account, filterId: string, keyword: string | undefined, wholeWord: boolean | undefined): string {
    const filter = this.ownFilter(me, filterId);
    return this.store.transaction(() => {
      this.applyKeywords(
        filter.id,
        filter.keywords.map((k) => k.id),
        [{ keyword, wholeWord }],
      );
      this.changed(me.id);
      return this.store.filters
        .ofAccount(me.id)
        .find((f) => f.id === filter.id)!
        .keywords.at(-1)!.id;
    });
  }

  ownKeyword(me: Account, id: string) {
    const k = this.store.filters.keyword(id);
    if (!k || k.accountId !== me.id) throw notFound();
    return k;
  }

  updateKeyword(me: Account, id: string, keyword: string | undefined, wholeWord: boolean | undefined): void {
    const k = this.ownKeyword(me, id);
    this.store.transaction(() => {
      this.applyKeywords(k.filterId, [k.id], [{ id, keyword, wholeWord }]);
      this.changed(me.id);
    });
  }

  deleteKeyword(me: Account, id: string): void {
    this.ownKeyword(me, id);
    this.store.transaction(() => {
      this.store.filters.deleteKeyword(id);
      this.changed(me.id);
    });
  }

  addStatus(me: Account, filterId: string, status: StatusRow): string {
    const filter = this.ownFilter(me, filterId);
    if (filter.statuses.length >= FILTER_LIMITS.statuses)
      throw refused(`a filter cannot hold more than ${FILTER_LIMITS.statuses} statuses`);
    return this.store.transaction(() => {
      const id = this.store.filters.addStatus(filter.id, status.id);
      this.changed(me.id);
      return id;
    });
  }

  ownStatusEntry(me: Account, id: string) {
    const entry = this.store.filters.statusEntry(id);
    if (!entry || entry.accountId !== me.id) throw notFound();
    return entry;
  }

  deleteStatus(me: Account, id: string): void {
    this.ownStatusEntry(me, id);
    this.store.transaction(() => {
      this.store.filters.deleteStatusEntry(id);
      this.changed(me.id);
    });
  }
}

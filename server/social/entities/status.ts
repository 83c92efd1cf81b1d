import type { FilterService } from '../domain/index.ts';
import { type Account, type QuoteRow, type SocialStore, type StatusEditRow, type StatusRow } from '../store/index.ts';
import { StatusFixedParts, type FixedParts, type StableParts } from './status-fixed-parts.ts';
import { type Gathered, type PresentOptions, varyingJson, varyingText } from './status-varying.ts';
import { statusHistory } from './status-history.ts';
import { StatusTexts } from './status-texts.ts';
import type { SocialUrls } from '../urls.ts';
import type { AccountJson, AccountPresenter } from './account.ts';
import { isoTime, isoTimeOrNull } from './dates.ts';

export type StatusJson = Record<string, unknown> & { id: string };

/**
 * Serializes statuses for one viewer in a fixed number of batched queries per page: authors, reblogged
 * statuses, mentions, tags, media, polls, counters and the viewer's own flags (favourited, reblogged,
 * bookmarked, muted, pinned).
 */
export class StatusPresenter {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly accounts: AccountPresenter;
  private readonly fixed: StatusFixedParts;
  private readonly filters: FilterService;
  private readonly texts: StatusTexts;

  constructor(store: SocialStore, urls: SocialUrls, accounts: AccountPresenter, filters: FilterService) {
    this.store = store;
    this.urls = urls;
    this.accounts = accounts;
    this.filters = filters;
    this.fixed = new StatusFixedParts(store, urls, accounts);
    this.texts = new StatusTexts(store, urls, filters);
  }

  uri(status: StatusRow, author: Account): string {
    return status.uri ?? this.urls.statusUri(author.username, status.id, status.reblogOfId !== null);
  }

  url(status: StatusRow, author: Account): string | null {
    if (status.url) return status.url;
    if (status.reblogOfId !== null) return null;
    return status.local ? this.urls.statusUrl(author.username, status.id) : status.uri;
  }

  one(status: StatusRow, viewer: Account | null, options: PresentOptions = {}): StatusJson {
    return this.present([status], viewer, options)[0];
  }

  present(statuses: readonly StatusRow[], viewer: Account | null, options: PresentOptions = {}): StatusJson[] {
    if (statuses.length === 0) return [];
    const g = this.gather(statuses, viewer, options, false);
    const build = (s: StatusRow, reblog: StatusJson | null): StatusJson => ({
      ...this.stable(s, g).json,
      ...varyingJson(s, g),
      account: g.authorJson.get(s.accountId)!,
      reblog,
    });
    const built = new Map<string, StatusJson>();
    for (const s of g.content) built.set(s.id, build(s, null));
    return statuses.map((s) => (s.reblogOfId === null ? built.get(s.id)! : build(s, built.get(s.reblogOfId) ?? null)));
  }

  /**
   * The same as `present`, as one JSON array text (timeline pages): the viewer-independent part of each
   * status and account is stringified once per version and reused; only counters, the viewer's flags,
   * polls and filter results are written per request, and each status's finished text is kept for the viewer
   * while nothing is written (status-texts.ts): a page listing statuses written before only joins their texts.
   */
  presentText(statuses: readonly StatusRow[], viewer: Account | null, options: PresentOptions = {}): string {
    if (statuses.length === 0) return '[]';
    const texts =
      options.source || options.shallowQuotes ? null : this.texts.of(viewer?.id ?? null, options.context ?? '');
    const now = this.store.now();
    const found: (string | undefined)[] = [];
    const missing: StatusRow[] = [];
    let until = Number.POSITIVE_INFINITY;
    for (const s of statuses) {
      const kept = texts ? this.texts.get(texts, s, now) : undefined;
      found.push(kept?.text);
      if (kept) until = Math.min(until, kept.until);
      else missing.push(s);
    }
    const horizon = { until: Number.POSITIVE_INFINITY };
    const g = missing.length > 0 ? this.gather(missing, viewer, { ...options, horizon }, true) : null;
    if (texts && g && viewer) {
      // What changes a kept text with time alone besides polls: a filter running out changes `filtered`, a mute
      // running out a quote's state.
      if (g.filtering) horizon.until = Math.min(horizon.until, this.filters.nextExpiry(viewer.id) ?? Infinity);
      if (g.quotes.size > 0)
        horizon.until = Math.min(horizon.until, this.store.timelines.nextMuteExpiry(viewer.id) ?? Infinity);
    }
    until = Math.min(until, horizon.until);
    if (options.horizon) options.horizon.until = Math.min(options.horizon.until, until);
    // Every piece goes into one list joined once: the answer is copied into one flat string a single time
    // (joining built statuses and then bracketing the join copied the page twice, and the socket once more).
    // The statuses written now are kept as their slices of the page (no copy made).
    const pieces: string[] = ['['];
    let length = 1;
    const made: { status: StatusRow; start: number; end: number }[] = [];
    statuses.forEach((s, i) => {
      if (i > 0) {
        pieces.push(',');
        length++;
      }
      const text = found[i];
      if (text !== undefined) {
        pieces.push(text);
        length += text.length;
        return;
      }
      const start = length;
      const from = pieces.length;
      this.writeStatus(pieces, s, g!);
      for (let p = from; p < pieces.length; p++) length += pieces[p].length;
      made.push({ status: s, start, end: length });
    });
    pieces.push(']');
    const page = pieces.join('');
    if (texts && made.length > 0 && now < horizon.until) this.texts.keepSlices(texts, page, made, horizon.until);
    return page;
  }

  /** One status's JSON text into `pieces` (a reblog with the status it reblogs). */
  private writeStatus(pieces: string[], s: StatusRow, g: Gathered): void {
    const write = (s: StatusRow, reblog: StatusRow | null) => {
      pieces.push('{', this.stable(s, g).text, ',', varyingText(s, g), ',"account":', g.authorText.get(s.accountId)!);
      pieces.push(',"reblog":');
      if (reblog) write(reblog, null);
      else pieces.push('null');
      pieces.push('}');
    };
    // A reblog shows the status it reblogs (null when that is gone or is itself a reblog, as `present`).
    const reblogged = s.reblogOfId === null ? undefined : g.byId.get(s.reblogOfId);
    write(s, reblogged?.reblogOfId === null ? reblogged : null);
  }

  /** Everything a page of statuses needs, in a fixed number of batched queries. */
  private gather(
    statuses: readonly StatusRow[],
    viewer: Account | null,
    options: PresentOptions,
    asText: boolean,
  ): Gathered {
    const byId = new Map(statuses.map((s) => [s.id, s]));
    const missing = [
      ...new Set(statuses.map((s) => s.reblogOfId).filter((id): id is string => id !== null && !byId.has(id))),
    ];
    for (const s of this.store.statuses.byIds(missing)) byId.set(s.id, s);
    const all = [...byId.values()];
    const content = all.filter((s) => s.reblogOfId === null);
    const { accounts: authorRows, counts: authorCounts } = this.store.accounts.byIdsWithCounts([
      ...new Set(all.map((s) => s.accountId)),
    ]);
    const authors = new Map(authorRows.map((a) => [a.id, a]));
    const authorJson = new Map<string, AccountJson>();
    const authorText = new Map<string, string>();
    if (asText)
      this.accounts.presentText(authorRows, authorCounts).forEach((text, i) => authorText.set(authorRows[i].id, text));
    else this.accounts.present(authorRows, authorCounts).forEach((json, i) => authorJson.set(authorRows[i].id, json));
    const pollIds = all.map((s) => s.pollId).filter((id): id is string => id !== null);
    const polls = this.store.polls.byIds(pollIds);
    const now = this.store.now();
    if (options.horizon)
      for (const poll of polls.values())
        if (poll.expiresAt !== null && poll.expiresAt > now)
          options.horizon.until = Math.min(options.horizon.until, poll.expiresAt);
    const conversationIds = [...new Set(all.map((s) => s.conversationId).filter((id): id is string => id !== null))];
    const fixed = this.fixed.of(content, authors);
    const quotes = new Map<string, QuoteRow>();
    for (const [id, parts] of fixed) if (parts.quote) quotes.set(id, parts.quote);
    return {
      viewer,
      options,
      quotes,
      quoted: options.shallowQuotes ? new Map() : this.quotedStatuses([...quotes.values()], viewer, options),
      byId,
      content,
      authors,
      authorJson,
      authorText,
      fixed,
      counts: this.store.statuses.counts(content.map((s) => s.id)),
      polls,
      tallies: this.store.polls.tallies([...polls.values()]),
      ownVotes: viewer && pollIds.length ? this.store.polls.ownVotes(viewer.id, pollIds) : new Map<string, number[]>(),
      flags: viewer
        ? this.store.interactions.flags(
            viewer.id,
            all.map((s) => s.id),
            conversationIds,
          )
        : null,
      following:
        viewer && all.some((s) => s.quoteApprovalPolicy === 'followers')
          ? this.viewerFollows(viewer, [...authors.keys()])
          : new Set<string>(),
      now,
      filtering: viewer !== null && this.filters.any(viewer.id),
      filters: this.filters,
    };
  }

  /** The part of a status that depends only on its row version (cached with its media, mentions and tags). */
  private stable(s: StatusRow, g: Gathered): StableParts {
    const parts = g.fixed.get(s.id) ?? this.emptyParts();
    if (parts.stable) return parts.stable;
    const author = g.authors.get(s.accountId)!;
    const json = {
      id: s.id,
      created_at: isoTime(s.createdAt),
      in_reply_to_id: s.inReplyToId,
      in_reply_to_account_id: s.inReplyToAccountId,
      sensitive: s.sensitive,
      spoiler_text: s.spoilerText,
      visibility: s.visibility,
      language: s.language,
      uri: this.uri(s, author),
      url: this.url(s, author),
      edited_at: isoTimeOrNull(s.editedAt),
      content: s.content,
      application: parts.application,
      media_attachments: parts.media_attachments,
      mentions: parts.mentions,
      tags: parts.tags,
      emojis: parts.emojis,
      card: parts.card,
    };
    parts.stable = { json, text: JSON.stringify(json).slice(1, -1) };
    return parts.stable;
  }

  /** Reblog wrappers have no media, mentions or tags of their own (they are not in the fixed-parts cache). */
  private emptyParts(): FixedParts {
    return { media_attachments: [], mentions: [], tags: [], emojis: [], application: null, quote: null, card: null };
  }

  /**
   * The Quote entities of a page's quotes as the viewer may see them (Mastodon 4.5's states): accepted ones
   * carry the quoted status, unless it is gone (`deleted`) or the viewer may not read it (`unauthorized`);
   * one whose author the viewer blocks or mutes says so (`blocked_account`, `muted_account`) and still carries
   * it, for clients to show behind a warning, as Mastodon does.
   */
  private quotedStatuses(
    quotes: QuoteRow[],
    viewer: Account | null,
    options: PresentOptions,
  ): Map<string, Record<string, unknown>> {
    const result = new Map<string, Record<string, unknown>>();
    const accepted = quotes.filter((q) => q.state === 'accepted');
    const ids = accepted.map((q) => q.quotedStatusId).filter((id): id is string => id !== null);
    const rows = new Map(this.store.statuses.byIds(ids).map((s) => [s.id, s]));
    // Readable by visibility alone: blocks and mutes show as states instead of hiding the quote.
    const readable = ids.length
      ? this.store.timelines.readableIds(
          { viewerId: viewer?.id ?? null, blocks: false, mutes: false, domainBlocks: false },
          ids,
        )
      : new Set<string>();
    const shown = [...readable].map((id) => rows.get(id)).filter((s): s is StatusRow => s !== undefined);
    const json = new Map(this.present(shown, viewer, { ...options, shallowQuotes: true }).map((j) => [j.id, j]));
    for (const q of accepted) {
      const row = q.quotedStatusId ? rows.get(q.quotedStatusId) : undefined;
      let state = 'accepted';
      if (!row || row.deletedAt !== null) state = 'deleted';
      else if (!json.has(row.id)) state = 'unauthorized';
      else if (viewer && this.store.relationships.blocking(viewer.id, row.accountId)) state = 'blocked_account';
      else if (viewer && this.store.relationships.mute(viewer.id, row.accountId)) state = 'muted_account';
      const carried = state === 'accepted' || state === 'blocked_account' || state === 'muted_account';
      result.set(q.id, { state, quoted_status: carried ? json.get(row!.id)! : null });
    }
    return result;
  }

  /**
   * The same statuses rendered for many viewers (streaming fan-out): viewers whose rendering cannot differ
   * (no own favourite, reblog, bookmark, pin, vote or conversation mute; not an author; the same answer to
   * "follows the author" where a quote policy asks it) share one rendering, so a post to a thousand
   * subscribers is rendered a handful of times, not a thousand.
   */
  presentForViewers(
    statuses: readonly StatusRow[],
    viewers: readonly Account[],
  ): { viewers: Account[]; json: StatusJson[] }[] {
    if (viewers.length === 0) return [];
    const rows = [...statuses];
    const reblogged = this.store.statuses.byIds(
      rows.map((s) => s.reblogOfId).filter((id): id is string => id !== null),
    );
    const all = [...rows, ...reblogged];
    const viewerIds = viewers.map((v) => v.id);
    const marked = this.store.interactions.viewersWithMarks(
      viewerIds,
      all.map((s) => s.id),
      [...new Set(all.map((s) => s.conversationId).filter((id): id is string => id !== null))],
      all.map((s) => s.pollId).filter((id): id is string => id !== null),
    );
    const authors = new Set(all.map((s) => s.accountId));
    const askFollows = [...new Set(all.filter((s) => s.quoteApprovalPolicy === 'followers').map((s) => s.accountId))];
    const follows = this.store.relationships.followPairs(viewerIds, askFollows);
    // Whether a quoted post is shown depends on the viewer's blocks and mutes of its author.
    const quotedAuthors = [...this.store.quotes.ofStatuses(all.map((s) => s.id)).values()]
      .map((q) => q.quotedAccountId)
      .filter((id): id is string => id !== null);
    const hidesQuoted = (viewer: Account) =>
      quotedAuthors.some(
        (a) => this.store.relationships.blocking(viewer.id, a) || this.store.relationships.mute(viewer.id, a) !== null,
      );
    const groups = new Map<string, Account[]>();
    for (const viewer of viewers) {
      const own = authors.has(viewer.id) || marked.has(viewer.id) || this.filters.any(viewer.id) || hidesQuoted(viewer);
      const key = own
        ? `own:${viewer.id}`
        : `follows:${askFollows.filter((a) => follows.has(`${viewer.id}>${a}`)).join()}`;
      const group = groups.get(key);
      if (group) group.push(viewer);
      else groups.set(key, [viewer]);
    }
    return [...groups.values()].map((group) => ({ viewers: group, json: this.present(statuses, group[0]) }));
  }

  private viewerFollows(viewer: Account, accountIds: string[]): Set<string> {
    return new Set(this.store.relationships.followedAmong(viewer.id, accountIds));
  }

  /** StatusEdit entities, oldest first; a status never edited has its current state as the only entry. */
  history(status: StatusRow, edits: readonly StatusEditRow[]): Record<string, unknown>[] {
    return statusHistory(this.store, this.urls, this.accounts, status, edits);
  }
}

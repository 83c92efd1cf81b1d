import type { FilterService } from '../domain/index.ts';
import type { Account, FilterContext, QuotePolicy, QuoteRow, SocialStore, StatusRow } from '../store/index.ts';
import type { AccountJson } from './account.ts';
import { serializeFilterResult } from './filter.ts';
import { serializePoll } from './poll.ts';
import type { FixedParts } from './status-fixed-parts.ts';

/*
 * The parts of a status written per request (counters, poll, quote, quote approval, the viewer's own flags),
 * as an object (`present`) and as JSON text (`presentText`, timeline pages).
 */

/** How a page of statuses is presented. */
export interface PresentOptions {
  /** Adds `text`, the plain source (the DELETE response, for delete and redraft). */
  source?: boolean;
  /** Where the statuses are shown: only filters of this context apply (all of them when absent). */
  context?: FilterContext;
  /** Quotes as ShallowQuote (id only): how a quoted status shows its own quote. */
  shallowQuotes?: boolean;
  /**
   * Lowered to the first moment the rendering changes with time alone (a shown poll closing), for callers
   * that keep the answer (timeline-answers.ts); quoted statuses share their quoting page's.
   */
  horizon?: { until: number };
}

/** What `gather` reads for a page of statuses. */
export interface Gathered {
  viewer: Account | null;
  options: PresentOptions;
  quotes: Map<string, QuoteRow>;
  /** The Quote entity of each quote (by quote id), as this viewer may see it. */
  quoted: Map<string, Record<string, unknown>>;
  byId: Map<string, StatusRow>;
  content: StatusRow[];
  authors: Map<string, Account>;
  authorJson: Map<string, AccountJson>;
  authorText: Map<string, string>;
  fixed: Map<string, FixedParts>;
  counts: ReturnType<SocialStore['statuses']['counts']>;
  polls: ReturnType<SocialStore['polls']['byIds']>;
  tallies: ReturnType<SocialStore['polls']['tallies']>;
  ownVotes: Map<string, number[]>;
  flags: ReturnType<SocialStore['interactions']['flags']> | null;
  following: Set<string>;
  now: number;
  filtering: boolean;
  filters: FilterService;
}

interface QuoteApproval {
  json: { automatic: string[]; manual: string[]; current_user: string };
  text: string;
}
const QUOTE_APPROVALS = new Map<string, QuoteApproval>();

/** Counters, poll, quote, quote approval and the viewer's own flags: written per request. */
export function varyingJson(s: StatusRow, g: Gathered): Record<string, unknown> {
  const [replies, reblogs, favourites, quotes] = counters(s, g);
  const json: Record<string, unknown> = {
    replies_count: replies,
    reblogs_count: reblogs,
    favourites_count: favourites,
    quotes_count: quotes,
    quote: quoteOf(s, g),
    quote_approval: approvalCopy(quoteApproval(s, g.viewer, g.following).json),
    poll: pollOf(s, g),
  };
  const own = viewerFlags(s, g);
  if (own) {
    json.favourited = own.favourited;
    json.reblogged = own.reblogged;
    json.muted = own.muted;
    json.bookmarked = own.bookmarked;
    if (own.pinned !== undefined) json.pinned = own.pinned;
    json.filtered = own.filtered;
  }
  if (g.options.source) json.text = s.text;
  return json;
}

/**
 * `varying` as JSON text without braces, written field by field in the same order: stringifying a fresh
 * object per status was a tenth of a timeline page's CPU. status.test.ts compares the two byte for byte.
 */
export function varyingText(s: StatusRow, g: Gathered): string {
  const [replies, reblogs, favourites, quotes] = counters(s, g);
  const quote = quoteOf(s, g);
  const poll = pollOf(s, g);
  let text = `"replies_count":${replies},"reblogs_count":${reblogs},"favourites_count":${favourites},"quotes_count":${quotes},"quote":${quote === null ? 'null' : JSON.stringify(quote)},"quote_approval":${quoteApproval(s, g.viewer, g.following).text},"poll":${poll === null ? 'null' : JSON.stringify(poll)}`;
  const own = viewerFlags(s, g);
  if (own) {
    text += `,"favourited":${own.favourited},"reblogged":${own.reblogged},"muted":${own.muted},"bookmarked":${own.bookmarked}`;
    if (own.pinned !== undefined) text += `,"pinned":${own.pinned}`;
    text += `,"filtered":${own.filtered.length === 0 ? '[]' : JSON.stringify(own.filtered)}`;
  }
  if (g.options.source) text += `,"text":${JSON.stringify(s.text)}`;
  return text;
}

/** Replies, reblogs, favourites and quotes (a remote status shows at least what its server reported). */
function counters(s: StatusRow, g: Gathered): [number, number, number, number] {
  const c = g.counts.get(s.id);
  return [
    s.local ? (c?.replies ?? 0) : Math.max(c?.replies ?? 0, s.remoteCounts.replies),
    s.local ? (c?.reblogs ?? 0) : Math.max(c?.reblogs ?? 0, s.remoteCounts.reblogs),
    s.local ? (c?.favourites ?? 0) : Math.max(c?.favourites ?? 0, s.remoteCounts.favourites),
    c?.quotes ?? 0,
  ];
}

function pollOf(s: StatusRow, g: Gathered): Record<string, unknown> | null {
  const poll = s.pollId ? g.polls.get(s.pollId) : undefined;
  if (!poll) return null;
  const viewer = g.viewer;
  return serializePoll(
    poll,
    g.tallies.get(poll.id)!,
    viewer ? { id: viewer.id, ownVotes: g.ownVotes.get(poll.id) ?? [] } : null,
    g.now,
  );
}

/** The viewer's own flags (none without a viewer); `pinned` only on the viewer's own pinnable statuses. */
function viewerFlags(s: StatusRow, g: Gathered) {
  const viewer = g.viewer;
  if (!g.flags || !viewer) return null;
  // A reblog's own flags are those of the status it reblogs, as Mastodon's (`status.proper`).
  const proper = s.reblogOfId ?? s.id;
  return {
    favourited: g.flags.favourited.has(proper),
    reblogged: g.flags.reblogged.has(proper),
    muted: s.conversationId !== null && g.flags.mutedConversations.has(s.conversationId),
    bookmarked: g.flags.bookmarked.has(proper),
    pinned:
      s.accountId === viewer.id && s.reblogOfId === null && s.visibility !== 'direct'
        ? g.flags.pinned.has(s.id)
        : undefined,
    filtered: g.filtering
      ? g.filters.matches(viewer.id, g.byId.get(proper) ?? s, g.options.context).map(serializeFilterResult)
      : [],
  };
}

/** The status's Quote (or ShallowQuote when it is itself shown as a quote), or null when it quotes nothing. */
function quoteOf(s: StatusRow, g: Gathered): Record<string, unknown> | null {
  const q = g.quotes.get(s.id);
  // A legacy quote (Misskey, Akkoma) that nobody approved is not shown as one, as Mastodon's `acceptable?`:
  // its text keeps the fallback link its server wrote.
  if (!q || (q.legacy && q.state !== 'accepted')) return null;
  if (g.options.shallowQuotes)
    return {
      state: q.state === 'accepted' && q.quotedStatusId === null ? 'deleted' : q.state,
      quoted_status_id: q.quotedStatusId,
    };
  return g.quoted.get(q.id) ?? { state: q.state, quoted_status: null };
}

/**
 * Mastodon 4.5's quote policy as shown to the viewer (we do not create quotes, but clients read this): one
 * of nine answers, each made once with its text.
 */
function quoteApproval(s: StatusRow, viewer: Account | null, following: Set<string>): QuoteApproval {
  const policy: QuotePolicy =
    s.visibility === 'private' || s.visibility === 'direct' ? 'nobody' : s.quoteApprovalPolicy;
  let currentUser: 'automatic' | 'manual' | 'denied' | 'unknown';
  if (!viewer) currentUser = 'unknown';
  else if (viewer.id === s.accountId) currentUser = 'automatic';
  else if (policy === 'public') currentUser = 'automatic';
  else if (policy === 'followers') currentUser = following.has(s.accountId) ? 'automatic' : 'denied';
  else currentUser = 'denied';
  const key = `${policy}|${currentUser}`;
  let answer = QUOTE_APPROVALS.get(key);
  if (!answer) {
    const automatic = policy === 'public' ? ['public'] : policy === 'followers' ? ['followers'] : [];
    const json = { automatic, manual: [], current_user: currentUser };
    answer = { json, text: JSON.stringify(json) };
    QUOTE_APPROVALS.set(key, answer);
  }
  // Shared: `varyingJson` hands callers a copy (approvalCopy), the text is immutable.
  return answer;
}

/** A fresh copy of a shared answer: callers of `present` may change what they are given. */
const approvalCopy = (a: QuoteApproval['json']) => ({
  automatic: [...a.automatic],
  manual: [],
  current_user: a.current_user,
});

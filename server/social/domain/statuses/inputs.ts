import type { Account, QuotePolicy, ScheduledStatusRow, StatusRow, User, Visibility } from '../../store/index.ts';

/** A repeated Idempotency-Key within this window returns the first result. */
export const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;
/** A scheduled status must be at least this far in the future (Mastodon: 5 minutes). */
export const MIN_SCHEDULE_OFFSET_MS = 5 * 60 * 1000;
export const MAX_SCHEDULED_TOTAL = 300;
export const MAX_SCHEDULED_PER_DAY = 25;
export const MAX_ANCESTORS = 40;
export const MAX_DESCENDANTS = 4096;

export interface PollInput {
  options: string[];
  expiresIn: number;
  multiple?: boolean;
  hideTotals?: boolean;
}

export interface PostInput {
  text: string;
  spoilerText?: string;
  sensitive?: boolean;
  visibility?: Visibility;
  language?: string | null;
  inReplyToId?: string | null;
  mediaIds?: string[];
  poll?: PollInput | null;
  quoteApprovalPolicy?: QuotePolicy | null;
  /** The status this post quotes (Mastodon 4.5 quote posts). */
  quotedStatusId?: string | null;
  /** ms since the epoch; makes a ScheduledStatus instead of a status. */
  scheduledAt?: number | null;
  idempotencyKey?: string | null;
  /** When given, mentioning anyone else is refused (422 with unexpected_accounts). */
  allowedMentions?: string[] | null;
}

export interface MediaAttributeInput {
  id: string;
  description?: string | null;
  focus?: { x: number; y: number } | null;
}

export interface EditInput {
  text: string;
  spoilerText?: string;
  sensitive?: boolean;
  language?: string | null;
  mediaIds?: string[];
  mediaAttributes?: MediaAttributeInput[];
  poll?: PollInput | null;
  quoteApprovalPolicy?: QuotePolicy | null;
}

export type PostResult = { kind: 'status'; status: StatusRow } | { kind: 'scheduled'; scheduled: ScheduledStatusRow };

/** Who posts: the account, its user (posting defaults) and the application of the token. */
export interface Poster {
  account: Account;
  user: User | null;
  applicationId: string | null;
}

export interface Formatted {
  content: string;
  mentioned: Account[];
  tags: string[];
}

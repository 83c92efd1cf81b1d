/* The status as the store hands it out: a leaf module, which the domain events (events.ts) name without a cycle. */

export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const QUOTE_POLICIES = ['public', 'followers', 'nobody'] as const;
export type QuotePolicy = (typeof QUOTE_POLICIES)[number];

export interface StatusRow {
  id: string;
  uri: string | null;
  url: string | null;
  accountId: string;
  local: boolean;
  inReplyToId: string | null;
  inReplyToAccountId: string | null;
  reblogOfId: string | null;
  conversationId: string | null;
  quoteApprovalPolicy: QuotePolicy;
  /** Source text of local statuses. */
  text: string;
  content: string;
  spoilerText: string;
  visibility: Visibility;
  sensitive: boolean;
  language: string | null;
  applicationId: string | null;
  pollId: string | null;
  /** Counters a remote server reported (local ones are counted from rows). */
  remoteCounts: { replies: number; reblogs: number; favourites: number };
  editedAt: number | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

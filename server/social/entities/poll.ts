import type { PollRow, PollTally } from '../store/index.ts';
import { isoTimeOrNull } from './dates.ts';

/**
 * The Poll entity. Totals stay hidden (null) while a hide_totals poll runs, except to its author;
 * voted and own_votes only for a signed-in viewer.
 */
export function serializePoll(
  poll: PollRow,
  tally: PollTally,
  viewer: { id: string; ownVotes: number[] } | null,
  now: number,
): Record<string, unknown> {
  const expired = poll.expiresAt !== null && poll.expiresAt <= now;
  const hidden = poll.hideTotals && !expired && viewer?.id !== poll.accountId;
  const json: Record<string, unknown> = {
    id: poll.id,
    expires_at: isoTimeOrNull(poll.expiresAt),
    expired,
    multiple: poll.multiple,
    votes_count: tally.votes,
    voters_count: tally.voters,
    options: poll.options.map((title, i) => ({ title, votes_count: hidden ? null : tally.perOption[i] })),
    emojis: [],
  };
  if (viewer) {
    json.voted = viewer.id === poll.accountId || viewer.ownVotes.length > 0;
    json.own_votes = viewer.ownVotes;
  }
  return json;
}

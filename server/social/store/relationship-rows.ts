/** The rows of the relationship tables (follows, follow requests, mutes) and the facts read about a pair. */
import { bool, int, jsonOr, str } from './store.ts';

export interface FollowOptions {
  showReblogs: boolean;
  notify: boolean;
  languages: string[] | null;
}

export interface FollowRow extends FollowOptions {
  id: string;
  accountId: string;
  targetAccountId: string;
  uri: string | null;
  createdAt: number;
}

export interface MuteRow {
  id: string;
  hideNotifications: boolean;
  expiresAt: number | null;
}

/** Everything the Relationship entity needs about (viewer, target), read in a few batched queries. */
export interface RelationshipFacts {
  id: string;
  follow: FollowOptions | null;
  followRequest: FollowOptions | null;
  followedBy: boolean;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  mute: MuteRow | null;
  domainBlocking: boolean;
  endorsed: boolean;
  note: string;
}

export function toFollow(r: Record<string, unknown>): FollowRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    showReblogs: bool(r.show_reblogs),
    notify: bool(r.notify),
    languages: jsonOr<string[] | null>(r.languages, null),
    uri: (r.uri as string | null) ?? null,
    createdAt: int(r.created_at),
  };
}

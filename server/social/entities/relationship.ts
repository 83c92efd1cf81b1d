import type { RelationshipFacts } from '../store/index.ts';
import { isoTimeOrNull } from './dates.ts';

/**
 * The Relationship entity. Plain booleans plus showing_reblogs and muting_notifications; no blocked_by
 * (our API seed removes it, so a blocked user cannot learn who blocked them).
 */
export function serializeRelationship(f: RelationshipFacts) {
  const followLike = f.follow ?? f.followRequest;
  return {
    id: f.id,
    following: f.follow !== null,
    showing_reblogs: followLike?.showReblogs ?? false,
    notifying: followLike?.notify ?? false,
    languages: f.follow?.languages ?? null,
    followed_by: f.followedBy,
    blocking: f.blocking,
    muting: f.mute !== null,
    muting_notifications: f.mute?.hideNotifications ?? false,
    muting_expires_at: isoTimeOrNull(f.mute?.expiresAt ?? null),
    requested: f.followRequest !== null,
    requested_by: f.requestedBy,
    domain_blocking: f.domainBlocking,
    endorsed: f.endorsed,
    note: f.note,
  };
}

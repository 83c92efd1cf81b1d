import { aclAllows, isMetastream, originalStreamOf, SystemRoles, SystemStreams, type AccessKind } from './metadata.ts';
import type { StreamCache } from './stream-cache.ts';
import type { Caller, Principal } from './types.ts';

/** The store's own identity for internal writes (users, scavenge records): passes every ACL. */
export const SYSTEM_CALLER: Principal = Object.freeze({ name: '$system', groups: Object.freeze([SystemRoles.Admins]) });

/** EventStoreDB's stream access check: a metastream's rights come from its stream's `$mr`/`$mw`. */
export function canAccess(streams: StreamCache, streamId: string, access: AccessKind, caller: Caller): boolean {
  if (isMetastream(streamId)) {
    const original = originalStreamOf(streamId);
    if (access === 'read') return canAccess(streams, original, 'metaRead', caller);
    if (access === 'write') return canAccess(streams, original, 'metaWrite', caller);
    return false;
  }
  if ((access === 'write' || access === 'delete') && streamId === SystemStreams.All) return false;
  if (caller === SYSTEM_CALLER) return true;
  return aclAllows(streamId, access, caller, streams.metadataOf(streamId).acl, streams.systemSettings());
}

/**
 * What becomes of each source event, following the official replicator (kurrent-io/replicator): events whose
 * type starts with `$` are not copied (links `$>`, system and projection bookkeeping), except `$metadata` of a
 * user stream, which is copied into the target's `$$stream` as it is (ACL, $maxAge, $maxCount, $tb, custom keys,
 * and the soft delete, which is `$tb` = long.MaxValue). Beyond the official one, a tombstone (`$streamDeleted`)
 * becomes a hard delete on the target.
 */
import type { LogPosition, SourceEvent, TargetWrite } from './types.ts';

export interface ReplicationFilter {
  /** Stream name prefixes; an event passes when its stream starts with one of them (or none are given). */
  streamPrefixes: string[];
  streamRegex: RegExp | null;
  eventTypePrefixes: string[];
  eventTypeRegex: RegExp | null;
}

export const NO_FILTER: ReplicationFilter = {
  streamPrefixes: [],
  streamRegex: null,
  eventTypePrefixes: [],
  eventTypeRegex: null,
};

const METADATA_TYPE = '$metadata';
const TOMBSTONE_TYPE = '$streamDeleted';

function streamPasses(filter: ReplicationFilter, streamId: string): boolean {
  const prefixes = filter.streamPrefixes;
  if (prefixes.length > 0 && !prefixes.some((p) => streamId.startsWith(p))) return false;
  return !filter.streamRegex || filter.streamRegex.test(streamId);
}

function typePasses(filter: ReplicationFilter, eventType: string): boolean {
  const prefixes = filter.eventTypePrefixes;
  if (prefixes.length > 0 && !prefixes.some((p) => eventType.startsWith(p))) return false;
  return !filter.eventTypeRegex || filter.eventTypeRegex.test(eventType);
}

export type EventAction = 'copy' | 'tombstone' | 'skip';

export function actionFor(filter: ReplicationFilter, e: SourceEvent): EventAction {
  if (e.eventType === METADATA_TYPE) {
    if (!e.streamId.startsWith('$$')) return 'skip';
    const original = e.streamId.slice(2);
    return !original.startsWith('$') && streamPasses(filter, original) ? 'copy' : 'skip';
  }
  if (e.eventType === TOMBSTONE_TYPE)
    return !e.streamId.startsWith('$') && streamPasses(filter, e.streamId) ? 'tombstone' : 'skip';
  if (e.eventType.startsWith('$')) return 'skip';
  return streamPasses(filter, e.streamId) && typePasses(filter, e.eventType) ? 'copy' : 'skip';
}

/** Bounds of one append: below every server's request limit (16 MiB on Homeport and KurrentDB). */
export const MAX_APPEND_EVENTS = 1000;
export const MAX_APPEND_BYTES = 4 * 1024 * 1024;
const EVENT_OVERHEAD_BYTES = 100;

function sizeOf(e: SourceEvent): number {
  return e.data.length + e.metadata.length + e.eventType.length + e.streamId.length + EVENT_OVERHEAD_BYTES;
}

/** The target writes for a run of source events, in order: consecutive copies to one stream share an append. */
export function planWrites(filter: ReplicationFilter, events: SourceEvent[]): TargetWrite[] {
  const writes: TargetWrite[] = [];
  let open: { streamId: string; events: SourceEvent[]; bytes: number } | null = null;
  for (const e of events) {
    const action = actionFor(filter, e);
    if (action === 'skip') continue;
    if (action === 'tombstone') {
      open = null;
      writes.push({ kind: 'tombstone', streamId: e.streamId, event: e });
      continue;
    }
    const size = sizeOf(e);
    if (
      open &&
      open.streamId === e.streamId &&
      open.events.length < MAX_APPEND_EVENTS &&
      open.bytes + size <= MAX_APPEND_BYTES
    ) {
      open.events.push(e);
      open.bytes += size;
      continue;
    }
    open = { streamId: e.streamId, events: [e], bytes: size };
    writes.push({ kind: 'append', streamId: e.streamId, events: open.events });
  }
  return writes;
}

export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** Ready to print or store: bigints as decimal text. */
function formatPosition(p: LogPosition | null): string {
  return p ? `${p.commit}/${p.prepare}` : 'start';
}

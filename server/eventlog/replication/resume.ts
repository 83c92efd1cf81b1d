/**
 * Exactly once across crashes. The replicator writes one append at a time, in source order, and moves its
 * checkpoint after every page of at most RESUME_WINDOW source events, so after a crash of anyone the target
 * holds every event up to the checkpoint plus an unknown prefix of the next RESUME_WINDOW events. That prefix
 * ends at the last of those events the target has: looking from the end, the first write found on the
 * target (its last event id among the stream's last events, or the stream tombstoned) marks the boundary.
 * Looking from the end also copes with streams that keep only their newest events (`$$` streams keep one).
 */
import { planWrites, type ReplicationFilter } from './plan.ts';
import type { ReplicationTarget, SourceEvent, StreamTail, TargetWrite } from './types.ts';

export const RESUME_WINDOW = 4096;

/** How many of `events` (handled in order from the checkpoint) the target already has. */
export async function eventsAlreadyOnTarget(
  target: ReplicationTarget,
  filter: ReplicationFilter,
  events: SourceEvent[],
): Promise<number> {
  const writes = planWrites(filter, events);
  const tails = new Map<string, StreamTail>();
  const tailOf = async (streamId: string) => {
    let tail = tails.get(streamId);
    if (!tail) {
      tail = await target.streamTail(streamId, RESUME_WINDOW);
      tails.set(streamId, tail);
    }
    return tail;
  };
  for (let i = writes.length - 1; i >= 0; i--) {
    const write = writes[i];
    if (await isOnTarget(write, tailOf)) return events.indexOf(lastEventOf(write)) + 1;
  }
  return 0;
}

function lastEventOf(write: TargetWrite): SourceEvent {
  return write.kind === 'append' ? write.events[write.events.length - 1] : write.event;
}

async function isOnTarget(write: TargetWrite, tailOf: (streamId: string) => Promise<StreamTail>): Promise<boolean> {
  const tail = await tailOf(write.streamId);
  if (write.kind === 'tombstone') return tail.tombstoned;
  return tail.eventIds.has(lastEventOf(write).eventId);
}

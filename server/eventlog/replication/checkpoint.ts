/**
 * The replicator's checkpoint lives on the target, in the system stream `$replication-<name>`: the source
 * position of the last event whose effect is on the target. Kept beside the data it describes, it cannot
 * claim more than the target holds (it is written after the events) and it travels with the target's backups.
 */
import crypto from 'node:crypto';
import type { LogPosition, SourceEvent } from './types.ts';

export const CHECKPOINT_EVENT_TYPE = '$ReplicationCheckpoint';
/** Older checkpoints are of no use: the target keeps the last few. */
export const CHECKPOINT_MAX_COUNT = 10;

export interface Checkpoint {
  /** null until the first source event was handled. */
  position: LogPosition | null;
  source: string;
  /** Source events handled (copied or skipped) so far, over every run. */
  handled: number;
  /** Source events that changed the target. */
  copied: number;
}

export function checkpointStream(name: string): string {
  return `$replication-${name}`;
}

/** A name for the checkpoint stream from the source's address (credentials are never part of it). */
export function defaultReplicationName(sourceDescription: string): string {
  const readable = sourceDescription.replace(/^[a-z+]+:\/\//, '').replace(/[^A-Za-z0-9_.-]+/g, '_');
  const hash = crypto.createHash('sha256').update(sourceDescription).digest('hex').slice(0, 8);
  return `${readable.slice(-40)}-${hash}`;
}

function jsonEvent(streamId: string, eventType: string, body: unknown): SourceEvent {
  return {
    streamId,
    eventNumber: -1n,
    eventId: crypto.randomUUID(),
    eventType,
    isJson: true,
    data: Buffer.from(JSON.stringify(body)),
    metadata: new Uint8Array(0),
    created: Date.now(),
    position: { commit: -1n, prepare: -1n },
  };
}

export function checkpointEvent(name: string, checkpoint: Checkpoint): SourceEvent {
  const { position, ...rest } = checkpoint;
  const body = {
    ...rest,
    commitPosition: position ? position.commit.toString() : null,
    preparePosition: position ? position.prepare.toString() : null,
  };
  return jsonEvent(checkpointStream(name), CHECKPOINT_EVENT_TYPE, body);
}

/** The metadata event that keeps the checkpoint stream short. */
export function checkpointStreamMetadata(name: string): SourceEvent {
  return jsonEvent(`$$${checkpointStream(name)}`, '$metadata', { $maxCount: CHECKPOINT_MAX_COUNT });
}

export function parseCheckpoint(body: unknown): Checkpoint | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const digits = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);
  const position =
    digits(b.commitPosition) && digits(b.preparePosition)
      ? { commit: BigInt(b.commitPosition as string), prepare: BigInt(b.preparePosition as string) }
      : null;
  return {
    position,
    source: typeof b.source === 'string' ? b.source : '',
    handled: typeof b.handled === 'number' ? b.handled : 0,
    copied: typeof b.copied === 'number' ? b.copied : 0,
  };
}

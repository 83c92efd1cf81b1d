/**
 * Writes what a projection produced, inside one commit of the store: the emitted events (with the
 * `$$stream` metadata EventStoreDB writes before a projection's first event in a stream) and the
 * checkpoint that says how far the input was processed. One transaction for both is what keeps a
 * projection exact across a crash: after a SIGKILL either the links and their checkpoint are there,
 * or neither is and the events are processed again.
 */
import crypto from 'node:crypto';
import { metastreamOf, SystemEventTypes, type SystemWriter, ExpectedVersion, type NewEvent } from '../store/index.ts';
import { emittedMetadata, tagJson, type CheckpointTag, type ProjectionVersion } from './checkpoint-tag.ts';
import type { EmittedEvent } from './emitted.ts';
import { ProjectionEventTypes } from './names.ts';

const utf8 = new TextEncoder();
const EMPTY = new Uint8Array(0);

/** A write the store refused (a deleted target stream…): the projection faults with this message. */
export class ProjectionWriteError extends Error {}

export interface ProjectionOutput {
  version: ProjectionVersion;
  emitted: EmittedEvent[];
  /** Written last: the checkpoint stream, its `[state(,result)]` data and the tag of the last event read. */
  checkpoint?: { streamId: string; data: string; tag: CheckpointTag };
  /** Events written as they are (state, result, partition streams), with the tag as metadata when given. */
  plain?: { streamId: string; eventType: string; isJson: boolean; data: string; tag?: CheckpointTag }[];
  /** Streams seen for the first time, when the projection tracks its emitted streams. */
  tracked?: { streamId: string; data: string }[];
}

export function newEvent(eventType: string, isJson: boolean, data: string, metadata: string | null): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType,
    isJson,
    data: utf8.encode(data),
    metadata: metadata === null ? EMPTY : utf8.encode(metadata),
  };
}

function append(w: SystemWriter, streamId: string, events: NewEvent[]): void {
  const r = w.append(streamId, ExpectedVersion.Any, events);
  if (r.result === 'StreamDeleted')
    throw new ProjectionWriteError(`Stream : ${streamId} is deleted. Cannot emit events to it`);
  if (r.result !== 'Success')
    throw new ProjectionWriteError(`Writing to ${streamId} failed: ${r.result}${r.message ? ` (${r.message})` : ''}`);
}

/** The metadata document of an emitted stream: readable by all for `$` streams, `$tb` past a reset. */
function emittedStreamMetadata(streamId: string, truncateBefore: number): string {
  const acl = streamId.startsWith('$') ? { $r: '$all', $mr: '$all' } : {};
  return JSON.stringify({ ...(truncateBefore > 0 ? { $tb: truncateBefore } : {}), $acl: acl });
}

const CHECKPOINT_STREAM_METADATA = JSON.stringify({
  $maxCount: 2,
  $acl: { $r: '$admins', $w: '$admins', $d: '$admins', $mr: '$all', $mw: '$admins' },
});

/**
 * Ensures the emitted stream's metadata (first write of this projection incarnation to it) and appends.
 * `owned` remembers streams this write already prepared.
 */
function appendEmitted(
  w: SystemWriter,
  streamId: string,
  events: NewEvent[],
  epochStart: (s: string) => number | null,
) {
  const info = w.streamInfo(streamId);
  if (info.tombstoned) throw new ProjectionWriteError(`Stream : ${streamId} is deleted. Cannot emit events to it`);
  const truncateFrom = info.lastEventNumber < 0 ? 0 : epochStart(streamId);
  if (truncateFrom !== null) {
    append(w, metastreamOf(streamId), [
      newEvent(SystemEventTypes.Metadata, true, emittedStreamMetadata(streamId, truncateFrom), null),
    ]);
  }
  append(w, streamId, events);
}

export interface WriteOptions {
  /**
   * For a stream that exists: the `$tb` to set before this projection's first write of its current epoch
   * (after a reset), or null to append as it is. Default: null.
   */
  logicalStreamStart?: (streamId: string, lastEventNumber: number) => number | null;
}

/** Writes one projection output; call inside `runSystemWrite`. Throws ProjectionWriteError on a refusal. */
export function writeProjectionOutput(w: SystemWriter, out: ProjectionOutput, options: WriteOptions = {}): void {
  const byStream = new Map<string, NewEvent[]>();
  for (const e of out.emitted) {
    const metadata = emittedMetadata({
      version: out.version,
      tag: e.tag,
      extra: e.extra,
      causedBy: e.causedBy,
      correlationId: e.correlationId,
    });
    const list = byStream.get(e.streamId);
    const event = newEvent(e.eventType, e.isJson, e.data, metadata);
    if (list) list.push(event);
    else byStream.set(e.streamId, [event]);
  }
  const epochStart = (s: string) => options.logicalStreamStart?.(s, w.streamInfo(s).lastEventNumber) ?? null;
  for (const [streamId, events] of byStream) appendEmitted(w, streamId, events, epochStart);
  for (const t of out.tracked ?? [])
    appendEmitted(w, t.streamId, [newEvent(ProjectionEventTypes.StreamTracked, false, t.data, null)], () => null);
  for (const p of out.plain ?? []) {
    const metadata = p.tag ? tagJson(p.tag, out.version) : null;
    appendEmitted(w, p.streamId, [newEvent(p.eventType, p.isJson, p.data, metadata)], () => null);
  }
  if (out.checkpoint) {
    const { streamId, data, tag } = out.checkpoint;
    if (w.streamInfo(streamId).lastEventNumber < 0)
      append(w, metastreamOf(streamId), [newEvent(SystemEventTypes.Metadata, true, CHECKPOINT_STREAM_METADATA, null)]);
    append(w, streamId, [newEvent(ProjectionEventTypes.Checkpoint, true, data, tagJson(tag, out.version))]);
  }
}

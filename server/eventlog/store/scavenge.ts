/**
 * Scavenge: physically deletes the rows no read can return any more — events below `$tb` or beyond
 * `$maxCount`, events older than `$maxAge`, everything of a soft-deleted stream, everything but the
 * tombstone of a hard-deleted one, and all but the newest event of every `$$` metadata stream.
 *
 * It runs in the background in small steps, each step one group commit deleting at most
 * `scavengeChunkRows` rows, so appends keep flowing. Progress is recorded in `$scavenges` as
 * `$scavengeStarted` / `$scavengeCompleted`, as EventStoreDB does, and can be asked for while it runs
 * (streams visited of those counted at the start, as a percentage).
 */
import crypto from 'node:crypto';
import { type Database, preparingUnseen } from '../../db/index.ts';
import type { Logger } from '../../logger.ts';
import {
  isMetastream,
  jsonEvent,
  metastreamOf,
  minReadableEventNumber,
  originalStreamOf,
  SystemEventTypes,
  SystemStreams,
} from './metadata.ts';
import type { SystemWriter } from './system-writer.ts';
import { EVENT_NUMBER_DELETED, ExpectedVersion, type ScavengeProgress, type ScavengeResult } from './types.ts';

export interface ScavengeHost {
  readonly db: Database;
  readonly logger: Logger;
  readonly limits: { scavengeChunkRows: number };
  readonly clock: () => number;
  runSystemWrite<T>(fn: (writer: SystemWriter) => T, options?: { internal?: boolean }): Promise<T>;
}

interface Cursor {
  phase: 'metastreams' | 'tombstones' | 'done';
  afterStreamId: string;
  afterStreamKey: number;
}

interface StepResult {
  removed: number;
  /** Streams the cursor moved past. */
  streamsDone: number;
}

const STREAMS_PER_STEP = 64;

export class Scavenger {
  private readonly host: ScavengeHost;
  private running: { id: string; done: Promise<void>; progress: ScavengeProgress } | null = null;
  private stopRequested = false;
  private readonly sql;

  constructor(host: ScavengeHost) {
    this.host = host;
    const prepare = preparingUnseen(host.db);
    this.sql = {
      metastreamsAfter: prepare(
        "SELECT stream_id FROM streams WHERE stream_id > ? AND stream_id < '$%' ORDER BY stream_id LIMIT ?",
      ).pluck(),
      tombstonedAfter: prepare(
        'SELECT stream_key, stream_id FROM streams WHERE tombstoned = 1 AND stream_key > ? ORDER BY stream_key LIMIT ?',
      ),
      deleteBelow: prepare(
        'DELETE FROM events WHERE position IN (SELECT position FROM events WHERE stream_key = ? AND event_number < ? ORDER BY event_number LIMIT ?)',
      ),
      countMetastreams: prepare("SELECT count(*) FROM streams WHERE stream_id > '$$' AND stream_id < '$%'").pluck(),
      countTombstoned: prepare('SELECT count(*) FROM streams WHERE tombstoned = 1').pluck(),
      firstFresh: prepare(
        'SELECT event_number FROM events WHERE stream_key = ? AND created >= ? ORDER BY event_number LIMIT 1',
      ).pluck(),
    };
  }

  /** The id of the scavenge under way, if any. */
  get currentId(): string | null {
    return this.running?.id ?? null;
  }

  /** A copy of the running scavenge's progress; null when none runs. */
  progress(): ScavengeProgress | null {
    return this.running ? { ...this.running.progress } : null;
  }

  start(): ScavengeResult {
    if (this.running) return { result: 'InProgress', scavengeId: this.running.id };
    const id = crypto.randomUUID();
    this.stopRequested = false;
    // The work is counted once at the start, in streams to visit (streams created meanwhile may add a few).
    const progress: ScavengeProgress = {
      scavengeId: id,
      startedAt: this.host.clock(),
      phase: 'metastreams',
      streamsDone: 0,
      streamsTotal: (this.sql.countMetastreams.get() as number) + (this.sql.countTombstoned.get() as number),
      percent: 0,
      eventsRemoved: 0,
    };
    const done = this.run(id, progress)
      .catch((err) => this.host.logger.error({ err, scavengeId: id }, 'scavenge failed'))
      .finally(() => {
        this.running = null;
      });
    this.running = { id, done, progress };
    return { result: 'Started', scavengeId: id };
  }

  /** Asks a running scavenge to stop after its current step and waits for it. */
  async stop(): Promise<void> {
    this.stopRequested = true;
    await this.running?.done;
  }

  private async run(scavengeId: string, progress: ScavengeProgress): Promise<void> {
    const { logger } = this.host;
    const startedAt = progress.startedAt;
    logger.info({ scavengeId }, 'scavenge started');
    await this.host.runSystemWrite(
      (w) =>
        w.append(SystemStreams.Scavenges, ExpectedVersion.Any, [
          jsonEvent(SystemEventTypes.ScavengeStarted, { scavengeId }),
        ]),
      { internal: true },
    );
    const cursor: Cursor = { phase: 'metastreams', afterStreamId: '$$', afterStreamKey: 0 };
    let removed = 0;
    let result = 'Success';
    let error = '';
    try {
      while (cursor.phase !== 'done') {
        if (this.stopRequested) {
          result = 'Stopped';
          break;
        }
        const step = await this.host.runSystemWrite((w) => this.step(w, cursor), { internal: true });
        removed += step.removed;
        progress.streamsDone += step.streamsDone;
        progress.streamsTotal = Math.max(progress.streamsTotal, progress.streamsDone);
        progress.eventsRemoved = removed;
        // The step moved the cursor on (TypeScript still sees the phase the loop tested).
        const phase = cursor.phase as Cursor['phase'];
        if (phase !== 'done') progress.phase = phase;
        // 100 is kept for the end: the last step may find more to do than was counted.
        progress.percent =
          phase === 'done'
            ? 100
            : Math.min(99, Math.floor((100 * progress.streamsDone) / Math.max(1, progress.streamsTotal)));
      }
    } catch (err) {
      result = 'Failed';
      error = (err as Error).message ?? String(err);
      logger.error({ err, scavengeId }, 'scavenge step failed');
    }
    const timeTakenMs = this.host.clock() - startedAt;
    await this.host.runSystemWrite(
      (w) =>
        w.append(SystemStreams.Scavenges, ExpectedVersion.Any, [
          jsonEvent(SystemEventTypes.ScavengeCompleted, {
            scavengeId,
            result,
            error,
            timeTakenMs,
            eventsRemoved: removed,
          }),
        ]),
      { internal: true },
    );
    logger.info({ scavengeId, result, eventsRemoved: removed, timeTakenMs }, 'scavenge completed');
  }

  /** One bounded step; moves the cursor past every stream it finished. */
  private step(w: SystemWriter, cursor: Cursor): StepResult {
    let budget = this.host.limits.scavengeChunkRows;
    let removed = 0;
    let streamsDone = 0;
    if (cursor.phase === 'metastreams') {
      const ids = this.sql.metastreamsAfter.all(cursor.afterStreamId, STREAMS_PER_STEP) as string[];
      if (ids.length === 0) {
        cursor.phase = 'tombstones';
        return { removed, streamsDone };
      }
      for (const metaId of ids) {
        if (!isMetastream(metaId)) {
          cursor.afterStreamId = metaId;
          streamsDone++;
          continue;
        }
        const n = this.scavengeMetastream(w, metaId, budget);
        removed += n.removed;
        budget -= n.removed;
        if (!n.complete) return { removed, streamsDone };
        cursor.afterStreamId = metaId;
        streamsDone++;
        if (budget <= 0) break;
      }
      return { removed, streamsDone };
    }
    const rows = this.sql.tombstonedAfter.all(cursor.afterStreamKey, STREAMS_PER_STEP) as {
      stream_key: number;
      stream_id: string;
    }[];
    if (rows.length === 0) {
      cursor.phase = 'done';
      return { removed, streamsDone };
    }
    for (const row of rows) {
      const n = this.scavengeHardDeleted(w, row.stream_id, budget);
      removed += n.removed;
      budget -= n.removed;
      if (!n.complete) return { removed, streamsDone };
      cursor.afterStreamKey = row.stream_key;
      streamsDone++;
      if (budget <= 0) break;
    }
    return { removed, streamsDone };
  }

  /** Deletes up to `budget` rows of a stream numbered below `below`; complete when fewer were left. */
  private deleteBelow(
    w: SystemWriter,
    streamId: string,
    key: number,
    below: number,
    budget: number,
  ): { removed: number; complete: boolean } {
    if (budget <= 0) return { removed: 0, complete: false };
    const removed = this.sql.deleteBelow.run(key, below, budget).changes;
    if (removed > 0) w.eventsRemoved(streamId, removed);
    return { removed, complete: removed < budget };
  }

  private scavengeMetastream(w: SystemWriter, metaId: string, budget: number): { removed: number; complete: boolean } {
    let removed = 0;
    const meta = w.streamInfo(metaId);
    if (meta.key !== 0 && meta.lastEventNumber > 0) {
      // A metadata stream only ever shows its newest event.
      const r = this.deleteBelow(w, metaId, meta.key, meta.lastEventNumber, budget);
      removed += r.removed;
      if (!r.complete) return { removed, complete: false };
    }
    const originalId = originalStreamOf(metaId);
    const stream = w.streamInfo(originalId);
    if (stream.key === 0 || stream.tombstoned) return { removed, complete: true };
    const md = stream.metadata;
    let below =
      md.truncateBefore === EVENT_NUMBER_DELETED
        ? EVENT_NUMBER_DELETED
        : minReadableEventNumber(md, stream.lastEventNumber);
    if (md.maxAge !== undefined && below !== EVENT_NUMBER_DELETED) {
      // Events are appended in time order, so everything before the first fresh one has expired.
      const fresh = this.sql.firstFresh.get(stream.key, w.now - md.maxAge * 1000) as number | undefined;
      below = Math.max(below, fresh ?? stream.lastEventNumber + 1);
    }
    if (below <= 0) return { removed, complete: true };
    const r = this.deleteBelow(w, originalId, stream.key, below, budget - removed);
    return { removed: removed + r.removed, complete: r.complete };
  }

  private scavengeHardDeleted(
    w: SystemWriter,
    streamId: string,
    budget: number,
  ): { removed: number; complete: boolean } {
    const stream = w.streamInfo(streamId);
    // Everything but the tombstone (numbered EVENT_NUMBER_DELETED) goes.
    const r = this.deleteBelow(w, streamId, stream.key, EVENT_NUMBER_DELETED, budget);
    if (!r.complete) return r;
    const metaId = metastreamOf(streamId);
    const meta = w.streamInfo(metaId);
    if (meta.key === 0) return r;
    const m = this.deleteBelow(w, metaId, meta.key, EVENT_NUMBER_DELETED, budget - r.removed);
    return { removed: r.removed + m.removed, complete: m.complete };
  }
}

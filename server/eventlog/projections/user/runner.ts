/**
 * Runs one JavaScript projection: reads its input on the server's thread, runs the query in its
 * sandbox worker, and writes what came out (emitted events, partition states, results, the partition
 * catalog) together with the checkpoint in one commit, so after a crash state and emitted events are
 * exactly once. Faults (a throwing, looping or memory-hungry query, emitting without emit enabled,
 * a state past 16 MiB) stop the projection with the reason; the server keeps going.
 */
import { SYSTEM_CALLER, type RecordedEvent } from '../../store/index.ts';
import { parseTag, tagDisplay, type CheckpointTag, type ProjectionVersion } from '../checkpoint-tag.ts';
import type { ProjectionMode } from '../definition.ts';
import type { EmittedEvent } from '../emitted.ts';
import { ProjectionEventTypes, ProjectionStreams } from '../names.ts';
import { writeProjectionOutput, type ProjectionOutput } from '../output-writer.ts';
import { correlationIdOf, decodeText } from '../source-event.ts';
import { DEFAULT_SANDBOX_LIMITS, ProjectionSandbox, type SandboxLimits } from '../sandbox/sandbox.ts';
import { idleProgress, readCheckpoint, type CoreStatus, type ProjectionHost } from '../system/runner.ts';
import { RunLoop } from '../run-loop.ts';
import { chargedToTurn, shareTurn } from '../turn-slicer.ts';
import { EpochStreams } from '../epoch-streams.ts';
import { InputReader, streamPartitionOf, type InputItem } from './reader.ts';
import type { SourceDefinition } from './source-definition.ts';

/** EventStoreDB's MaxProjectionStateSize. */
export const MAX_STATE_BYTES = 16 * 1024 * 1024;

export interface UserProjectionConfig {
  name: string;
  version: ProjectionVersion;
  query: string;
  mode: ProjectionMode;
  emitEnabled: boolean;
  checkpointsEnabled: boolean;
  trackEmittedStreams: boolean;
  limits?: SandboxLimits;
}

interface SandboxOutput {
  skip?: boolean;
  partition: string;
  created: boolean;
  state: string | null;
  shared?: string | null;
  result?: string | null;
  emitted: {
    kind: 'emit' | 'link' | 'stream';
    stream: string;
    type?: string;
    data: string;
    metadata?: Record<string, unknown>;
  }[];
}

const EMIT_NOT_ALLOWED = "'emit' is not allowed by the projection/configuration/mode";

export class ProjectionFault extends Error {}

export class UserProjectionRunner {
  readonly progress = idleProgress();
  readonly config: UserProjectionConfig;
  /** Partition → state JSON ('' is the root). */
  readonly states = new Map<string, string | null>();
  readonly results = new Map<string, string | null>();
  definition: SourceDefinition | null = null;
  private shared: string | null = null;
  private readonly host: ProjectionHost;
  private readonly loop = new RunLoop();
  private readonly epochStreams: EpochStreams;
  private sandbox: ProjectionSandbox | null = null;
  private readonly knownPartitions = new Set<string>();
  private readonly trackedStreams = new Set<string>();

  constructor(host: ProjectionHost, config: UserProjectionConfig) {
    this.host = host;
    this.config = config;
    this.epochStreams = new EpochStreams(host.store, config.version);
  }

  start(): void {
    if (this.loop.running) return;
    Object.assign(this.progress, { status: 'Running', stateReason: '', eventsProcessedAfterRestart: 0 });
    void this.loop.start(
      this.host.store,
      () =>
        this.run().finally(() => {
          void this.sandbox?.close();
          this.sandbox = null;
        }),
      (err) => this.fault(err),
    );
  }

  /** Stops after the batch in flight (every batch is checkpointed with its output). */
  async stop(_checkpoint: boolean, status: CoreStatus = 'Stopped'): Promise<void> {
    await this.loop.stop();
    if (this.progress.status === 'Running') this.progress.status = status;
  }

  /** Resolves when the run loop ended (one-time projections complete, faults). */
  whenEnded(): Promise<void> {
    return this.loop.ended();
  }

  private fault(err: unknown): void {
    this.progress.status = 'Faulted';
    this.progress.stateReason = err instanceof Error ? err.message : String(err);
    this.host.logger.warn({ projection: this.config.name, reason: this.progress.stateReason }, 'projection faulted');
  }

  private get persistent(): boolean {
    return this.config.checkpointsEnabled && this.config.mode !== 'Transient';
  }

  private async run(): Promise<void> {
    const { store } = this.host;
    const sandbox = new ProjectionSandbox(this.config.limits ?? DEFAULT_SANDBOX_LIMITS);
    this.sandbox = sandbox;
    const def = JSON.parse(await sandbox.compile(this.config.query)) as SourceDefinition;
    this.definition = def;
    const from = this.persistent ? this.loadStates() : null;
    this.progress.position = from;
    this.progress.lastCheckpoint = from;
    const loaded = [...this.states].filter((s): s is [string, string] => s[1] !== null);
    if (loaded.length > 0 || this.shared !== null) await sandbox.load(loaded, this.shared);
    const reader = new InputReader(store, def, from);
    while (!this.loop.stopping) {
      await shareTurn();
      if (this.loop.stopping) break;
      const items = reader.read();
      this.progress.headPosition = store.lastCommitPosition();
      if (items.length === 0) {
        this.progress.position = reader.reachedEnd(this.progress.position);
        if (this.config.mode === 'OneTime') {
          this.progress.status = 'Completed';
          return;
        }
        await this.loop.wake.wait();
        continue;
      }
      await this.processBatch(sandbox, def, items);
    }
  }

  /** Root state from the checkpoint, partition states from their checkpoint streams. */
  private loadStates(): CheckpointTag | null {
    const { store } = this.host;
    const saved = readCheckpoint(store, this.config.name, this.config.version);
    if (!saved) return null;
    const [state, result] = parseCheckpointData(saved.data);
    this.states.set('', state);
    if (result !== undefined) this.results.set('', result);
    const catalog = store.readStreamForward(
      ProjectionStreams.partitions(this.config.name),
      0,
      4096,
      false,
      SYSTEM_CALLER,
    );
    for (const { event } of catalog.events) {
      if (!event) continue;
      const partition = decodeText(event.data);
      this.knownPartitions.add(partition);
      const last = store.readStreamBackward(
        ProjectionStreams.partitionCheckpoint(this.config.name, partition),
        -1,
        1,
        false,
        SYSTEM_CALLER,
      );
      const cp = last.events[0]?.event;
      if (!cp) continue;
      const version = parseTag(decodeText(cp.metadata)).version;
      if (version && version.version < this.config.version.epoch) continue;
      const [pState, pResult] = parseCheckpointData(decodeText(cp.data));
      this.states.set(partition, pState);
      if (pResult !== undefined) this.results.set(partition, pResult);
    }
    return saved.tag;
  }

  private envelope(def: SourceDefinition, item: InputItem): string {
    if (item.deletedPartition !== undefined) return JSON.stringify({ deleted: true, partition: item.deletedPartition });
    const e = item.event;
    const text = (b: Uint8Array) => (b.length === 0 ? null : decodeText(b));
    return JSON.stringify({
      streamId: e.streamId,
      sequenceNumber: e.eventNumber,
      eventType: e.eventType,
      eventId: e.eventId,
      isJson: e.isJson,
      bodyRaw: text(e.data),
      metadataRaw: text(e.metadata),
      linkMetadataRaw: item.link ? text(item.link.metadata) : null,
      partition: def.byStream ? streamPartitionOf(item) : '',
      category: def.categories.length > 0 && item.link ? item.link.streamId.slice(4) : null,
      created: new Date(e.created).toISOString(),
    });
  }

  private async processBatch(sandbox: ProjectionSandbox, def: SourceDefinition, items: InputItem[]): Promise<void> {
    const handled = items.filter((i) => i.handled);
    const reply =
      handled.length > 0 ? await sandbox.process(handled.map((i) => this.envelope(def, i))) : { outputs: [] };
    if (reply.failedAt !== undefined) {
      const at = handled[reply.failedAt];
      const what = at.deletedPartition === undefined ? 'an event' : 'a delete partition notification';
      const handler = at.deletedPartition === undefined ? at.event.eventType : '$deleted';
      throw new ProjectionFault(
        `The ${this.config.name} projection failed to process ${what}.\r\nHandler: ${handler}\r\nEvent Position: ${tagDisplay(at.tag)}\r\n\r\nMessage:\r\n\r\n${reply.error}`,
      );
    }
    const emitted: EmittedEvent[] = [];
    const changedStates = new Map<string, CheckpointTag>();
    const changedResults = new Map<string, CheckpointTag>();
    const newPartitions: string[] = [];
    reply.outputs.forEach((json, i) => {
      const out = JSON.parse(json) as SandboxOutput;
      if (out.skip) return;
      const item = handled[i];
      if (out.state !== null && out.state.length > MAX_STATE_BYTES)
        throw new ProjectionFault(
          `The state size of projection ${this.config.name} exceeds the configured MaxProjectionStateSize of ${MAX_STATE_BYTES} bytes.`,
        );
      if (out.partition !== '' && !this.knownPartitions.has(out.partition)) {
        this.knownPartitions.add(out.partition);
        newPartitions.push(out.partition);
      }
      if (this.states.get(out.partition) !== out.state || !this.states.has(out.partition)) {
        this.states.set(out.partition, out.state);
        changedStates.set(out.partition, item.tag);
      }
      if (out.shared !== undefined) this.shared = out.shared;
      if (out.result !== undefined && this.results.get(out.partition) !== out.result) {
        this.results.set(out.partition, out.result);
        changedResults.set(out.partition, item.tag);
      }
      for (const em of out.emitted) {
        if (!this.config.emitEnabled) throw new ProjectionFault(EMIT_NOT_ALLOWED);
        emitted.push(this.emittedEvent(em, item));
      }
    });
    const last = items[items.length - 1].tag;
    await this.write(emitted, changedStates, changedResults, newPartitions, last, def);
    this.progress.eventsProcessedAfterRestart += handled.length;
    this.progress.position = last;
    if (this.persistent) this.progress.lastCheckpoint = last;
  }

  private emittedEvent(em: SandboxOutput['emitted'][number], item: InputItem): EmittedEvent {
    const source: RecordedEvent = item.event;
    const base = {
      streamId: em.stream,
      data: em.data,
      extra: em.metadata,
      causedBy: source.eventId,
      correlationId: correlationIdOf(source.metadata),
      tag: item.tag,
    };
    if (em.kind === 'emit') return { ...base, eventType: em.type ?? '', isJson: true };
    if (em.kind === 'link') return { ...base, eventType: '$>', isJson: false };
    return { ...base, eventType: ProjectionEventTypes.StreamReference, isJson: false };
  }

  private resultStream(def: SourceDefinition, partition: string): string {
    const { name } = this.config;
    if (partition === '') return def.options.resultStreamName ?? ProjectionStreams.result(name);
    const pattern = def.options.partitionResultStreamNamePattern;
    return pattern ? pattern.replace('{0}', partition) : ProjectionStreams.partitionResult(name, partition);
  }

  private checkpointData(partition: string): string {
    const state = this.states.get(partition) ?? '';
    const result = this.results.get(partition);
    return result === undefined ? `[${state}]` : `[${state},${result ?? 'null'}]`;
  }

  private async write(
    emitted: EmittedEvent[],
    changedStates: Map<string, CheckpointTag>,
    changedResults: Map<string, CheckpointTag>,
    newPartitions: string[],
    last: CheckpointTag,
    def: SourceDefinition,
  ): Promise<void> {
    if (this.config.mode === 'Transient') return;
    const { name } = this.config;
    const plain: NonNullable<ProjectionOutput['plain']> = [];
    for (const [partition, tag] of changedResults) {
      const result = this.results.get(partition) ?? null;
      plain.push({
        streamId: this.resultStream(def, partition),
        eventType: result === null ? ProjectionEventTypes.ResultRemoved : ProjectionEventTypes.Result,
        isJson: result !== null,
        data: result ?? '',
        tag,
      });
    }
    if (this.persistent) {
      for (const partition of newPartitions)
        plain.push({
          streamId: ProjectionStreams.partitions(name),
          eventType: ProjectionEventTypes.Partition,
          isJson: false,
          data: partition,
        });
      for (const [partition, tag] of changedStates) {
        if (partition === '') continue;
        plain.push({
          streamId: ProjectionStreams.partitionCheckpoint(name, partition),
          eventType: ProjectionEventTypes.PartitionCheckpoint,
          isJson: true,
          data: this.checkpointData(partition),
          tag,
        });
      }
    }
    const tracked: NonNullable<ProjectionOutput['tracked']> = [];
    if (this.config.trackEmittedStreams) {
      for (const e of emitted) {
        if (this.trackedStreams.has(e.streamId)) continue;
        this.trackedStreams.add(e.streamId);
        tracked.push({ streamId: ProjectionStreams.emittedStreams(name), data: e.streamId });
      }
    }
    const output: ProjectionOutput = {
      version: this.config.version,
      emitted,
      plain,
      tracked,
      ...(this.persistent
        ? { checkpoint: { streamId: ProjectionStreams.checkpoint(name), data: this.checkpointData(''), tag: last } }
        : {}),
    };
    if (emitted.length === 0 && plain.length === 0 && !this.persistent) return;
    const restart = this.epochStreams.starts(emitted);
    await this.host.runSystemWrite((w) =>
      chargedToTurn(() => writeProjectionOutput(w, output, { logicalStreamStart: (s) => restart.get(s) ?? null })),
    );
    this.epochStreams.written(emitted);
  }

  /** The state of a partition ('' = root), as JSON text; null when there is none. */
  stateOf(partition: string): string | null {
    return this.states.get(partition) ?? null;
  }

  resultOf(partition: string): string | null {
    return this.results.get(partition) ?? null;
  }
}

/** `[state]` or `[state,result]` → its parts as JSON text. */
function parseCheckpointData(data: string): [string | null, (string | null) | undefined] {
  try {
    const parsed = JSON.parse(data) as unknown[];
    if (!Array.isArray(parsed) || parsed.length === 0) return [null, undefined];
    const state = parsed[0] === null || parsed[0] === undefined ? null : JSON.stringify(parsed[0]);
    if (parsed.length < 2) return [state, undefined];
    return [state, parsed[1] === null ? null : JSON.stringify(parsed[1])];
  } catch {
    return [null, undefined];
  }
}

/**
 * The projections subsystem: loads the registry from the log, registers the standard projections on
 * first start, and runs what the mode allows (`none`: nothing is loaded; `system`: only `$` projections
 * run; `all`: every projection). Commands run one at a time and change the definition in the log
 * first, then the runner.
 */
import crypto from 'node:crypto';
import type { Logger } from '../../logger.ts';
import type { SystemWriter, EventStore } from '../store/index.ts';
import type { ProjectionVersion } from './checkpoint-tag.ts';
import { configOf, type ProjectionConfig, type ProjectionDefinition, type ProjectionMode } from './definition.ts';
import {
  isSystemProjectionName,
  PROJECTION_SUBSYSTEM_VERSION,
  SystemProjectionNames,
  type SystemProjectionName,
} from './names.ts';
import { deleteProjectionStreams } from './deletion.ts';
import { readRegistry, registerProjections, unregisterProjection, writeDefinition } from './registry.ts';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox/sandbox.ts';
import { SYSTEM_DEFAULT_QUERIES, SYSTEM_HANDLER_TYPES, systemHandler } from './system/handlers.ts';
import { idleProgress, SystemProjectionRunner, type ProjectionHost, type RunnerProgress } from './system/runner.ts';
import { SharedSystemReader } from './system/shared-reader.ts';
import { UserProjectionRunner } from './user/runner.ts';
import {
  ProjectionCommandError,
  ProjectionConfigError,
  ProjectionConflictError,
  ProjectionNotFoundError,
  SubsystemRestartError,
  type CreateProjection,
  type DeleteFlags,
  type ProjectionEntry,
  type RunProjections,
} from './commands.ts';

export interface ProjectionsOptions {
  mode: RunProjections;
  logger: Logger;
  /** Bounds of each JavaScript projection's sandbox (defaults: EventStoreDB's 250 ms per call, 64 MiB). */
  sandboxLimits?: SandboxLimits;
}

export interface ProjectionsEventLog {
  store: EventStore;
  runSystemWrite<T>(fn: (w: SystemWriter) => T): Promise<T>;
}

const SYSTEM_ORDER: SystemProjectionName[] = [
  SystemProjectionNames.Streams,
  SystemProjectionNames.StreamByCategory,
  SystemProjectionNames.ByCategory,
  SystemProjectionNames.ByEventType,
  SystemProjectionNames.ByCorrelationId,
];

type Runner = SystemProjectionRunner | UserProjectionRunner;

interface Managed {
  name: string;
  id: number;
  definition: ProjectionDefinition;
  runner: Runner | null;
  /** Progress kept when there is no runner (never started, stopped, a definition that failed to load). */
  idle: RunnerProgress;
  /** The last user runner, kept after it stopped: its states and results stay readable. */
  lastUserRunner: UserProjectionRunner | null;
}

export class ProjectionManager {
  readonly mode: RunProjections;
  private readonly host: ProjectionHost;
  /** One read of `$all` for all the standard projections. */
  private readonly systemReader: SharedSystemReader;
  private readonly sandboxLimits: SandboxLimits | undefined;
  private readonly projections = new Map<string, Managed>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(eventLog: ProjectionsEventLog, options: ProjectionsOptions) {
    this.mode = options.mode;
    this.sandboxLimits = options.sandboxLimits;
    this.host = { store: eventLog.store, runSystemWrite: (fn) => eventLog.runSystemWrite(fn), logger: options.logger };
    this.systemReader = new SharedSystemReader(eventLog.store);
  }

  async start(): Promise<void> {
    const registry = readRegistry(this.host.store);
    const missing = SYSTEM_ORDER.filter((n) => !registry.projections.some((p) => p.name === n));
    if (missing.length > 0)
      registry.projections.push(...(await this.createSystemProjections(missing, !registry.initialized)));
    for (const p of registry.projections) this.projections.set(p.name, this.managedOf(p.name, p.id, p.definition));
    for (const m of this.projections.values()) if (m.definition.enabled) this.startRunner(m);
  }

  private managedOf(name: string, id: number, definition: ProjectionDefinition): Managed {
    return { name, id, definition, runner: null, idle: idleProgress(), lastUserRunner: null };
  }

  /** Registers the standard projections created disabled (version 0), then enables them (version 1). */
  private createSystemProjections(names: SystemProjectionName[], initialize: boolean) {
    return this.host.runSystemWrite((w) => {
      const ids = registerProjections(w, names, initialize);
      return names.map((name, i) => {
        const base: ProjectionDefinition = {
          handlerType: SYSTEM_HANDLER_TYPES[name],
          query: SYSTEM_DEFAULT_QUERIES[name],
          mode: 'Continuous',
          enabled: false,
          emitEnabled: true,
          epoch: -1,
          version: 0,
          runAs: { name: '$system', roles: ['$admins'] },
          projectionSubsystemVersion: PROJECTION_SUBSYSTEM_VERSION,
        };
        writeDefinition(w, name, base);
        const definition = writeDefinition(w, name, { ...base, enabled: true });
        return { name, id: ids[i], definition };
      });
    });
  }

  private mayRun(name: string): boolean {
    return this.mode === 'all' || (this.mode === 'system' && isSystemProjectionName(name));
  }

  private startRunner(m: Managed): void {
    if (!this.mayRun(m.name) || m.runner) return;
    const d = m.definition;
    const version: ProjectionVersion = { id: m.id, epoch: d.epoch, version: d.version };
    try {
      if (d.handlerType.startsWith('native:')) {
        const handler = systemHandler(m.name as SystemProjectionName, d.query);
        m.runner = new SystemProjectionRunner(this.host, this.systemReader, m.name, version, handler);
      } else {
        const runner = new UserProjectionRunner(this.host, {
          name: m.name,
          version,
          query: d.query,
          mode: d.mode,
          emitEnabled: d.emitEnabled === true,
          checkpointsEnabled: d.checkpointsDisabled !== true,
          trackEmittedStreams: d.trackEmittedStreams === true,
          limits: {
            ...(this.sandboxLimits ?? DEFAULT_SANDBOX_LIMITS),
            ...(d.projectionExecutionTimeout ? { executionMs: d.projectionExecutionTimeout } : {}),
          },
        });
        m.runner = runner;
        m.lastUserRunner = runner;
      }
      m.runner.start();
    } catch (err) {
      m.runner = null;
      m.idle = { ...idleProgress(), status: 'Faulted', stateReason: (err as Error).message };
    }
  }

  list(mode?: ProjectionMode | 'AllNonTransient'): ProjectionEntry[] {
    return [...this.projections.values()]
      .filter((m) =>
        mode === undefined
          ? true
          : mode === 'AllNonTransient'
            ? m.definition.mode !== 'Transient'
            : m.definition.mode === mode,
      )
      .map((m) => this.entry(m));
  }

  get(name: string): ProjectionEntry {
    return this.entry(this.managed(name));
  }

  private entry(m: Managed): ProjectionEntry {
    return {
      name: m.name,
      id: m.id,
      definition: m.definition,
      progress: m.runner?.progress ?? m.idle,
      partitionsCached: m.lastUserRunner?.states.size ?? 0,
    };
  }

  private managed(name: string): Managed {
    const m = this.projections.get(name);
    if (!m) throw new ProjectionNotFoundError(`Projection '${name}' not found`);
    return m;
  }

  /** A partition's state ('' = root) as JSON text, or '' when there is none (as the HTTP API answers). */
  state(name: string, partition = ''): string {
    const runner = this.managed(name).lastUserRunner;
    return runner?.stateOf(partition) ?? '';
  }

  /** The source definition of a running (or last run) JavaScript projection, as the query config shows it. */
  sourceDefinition(name: string): unknown {
    return this.managed(name).lastUserRunner?.definition ?? null;
  }

  /** The partitions a JavaScript projection holds a state for ('' is the root), at most `limit`, sorted. */
  partitions(name: string, limit = 1000): string[] {
    const states = this.managed(name).lastUserRunner?.states;
    return states ? [...states.keys()].sort().slice(0, limit) : [];
  }

  /** The projection's configuration as `/projection/<name>/config` shows it. */
  config(name: string): ProjectionConfig {
    return configOf(this.managed(name).definition, (this.sandboxLimits ?? DEFAULT_SANDBOX_LIMITS).executionMs);
  }

  /** Saves a new configuration; only a stopped or faulted projection may change it, as in EventStoreDB. */
  updateConfig(name: string, change: Partial<ProjectionConfig>): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      if (m.runner?.progress.status === 'Running')
        throw new ProjectionCommandError(
          "Cannot update the config of a projection that hasn't been stopped or faulted.",
        );
      const timeout = change.projectionExecutionTimeout;
      if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0))
        throw new ProjectionConfigError('projectionExecutionTimeout must be a whole number of milliseconds above 0');
      const next = { ...configOf(m.definition, 0), ...change };
      await this.saveDefinition(m, {
        ...next,
        trackEmittedStreams: next.emitEnabled && next.trackEmittedStreams,
        projectionExecutionTimeout: next.projectionExecutionTimeout || undefined,
      });
    });
  }

  result(name: string, partition = ''): string {
    const runner = this.managed(name).lastUserRunner;
    return runner?.resultOf(partition) ?? '';
  }

  private command<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  private async stopRunner(m: Managed, checkpoint: boolean, status: 'Stopped' | 'Aborted'): Promise<void> {
    if (!m.runner) return;
    await m.runner.stop(checkpoint, status);
    m.idle = { ...m.runner.progress };
    m.runner = null;
  }

  private async saveDefinition(m: Managed, change: Partial<ProjectionDefinition>): Promise<void> {
    const next = { ...m.definition, ...change };
    if (next.mode === 'Transient') {
      m.definition = { ...next, version: next.version + 1 };
      return;
    }
    m.definition = await this.host.runSystemWrite((w) => writeDefinition(w, m.name, next));
  }

  create(request: CreateProjection): Promise<ProjectionEntry> {
    return this.command(async () => {
      const name = request.name ?? (request.mode === 'OneTime' ? crypto.randomUUID() : '');
      if (name.trim() === '') throw new ProjectionCommandError('A projection name is required');
      if (this.projections.has(name)) throw new ProjectionConflictError(`Duplicate projection names : ${name}`);
      const emit = request.emit === true;
      const definition: ProjectionDefinition = {
        handlerType: 'JS',
        query: request.query,
        mode: request.mode,
        enabled: request.enabled !== false,
        emitEnabled: emit,
        checkpointsDisabled: request.mode === 'OneTime' ? request.checkpoints !== true : request.mode === 'Transient',
        trackEmittedStreams: emit && request.trackEmittedStreams === true,
        epoch: -1,
        version: 0,
        runAs: { name: '$system', roles: ['$admins'] },
        projectionSubsystemVersion: PROJECTION_SUBSYSTEM_VERSION,
      };
      let m: Managed;
      if (request.mode === 'Transient') m = this.managedOf(name, 0, definition);
      else {
        const stored = await this.host.runSystemWrite((w) => {
          const [id] = registerProjections(w, [name], false);
          return { id, definition: writeDefinition(w, name, definition) };
        });
        m = this.managedOf(name, stored.id, stored.definition);
      }
      this.projections.set(name, m);
      if (m.definition.enabled) this.startRunner(m);
      return this.entry(m);
    });
  }

  /** Saves a new query (and emit when given): version+1, same epoch, so processing goes on from the checkpoint. */
  updateQuery(name: string, query: string, emit?: boolean): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      if (isSystemProjectionName(name) && m.definition.handlerType.startsWith('native:')) {
        systemHandler(name as SystemProjectionName, query); // refuses a bad category query before saving it
      }
      const wasRunning = m.runner !== null;
      await this.stopRunner(m, true, 'Stopped');
      await this.saveDefinition(m, { query, ...(emit === undefined ? {} : { emitEnabled: emit }) });
      if (wasRunning || m.definition.enabled) this.startRunner(m);
    });
  }

  enable(name: string): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      if (m.runner && m.runner.progress.status === 'Running') return;
      if (m.runner) await this.stopRunner(m, false, 'Stopped');
      if (!m.definition.enabled) await this.saveDefinition(m, { enabled: true });
      this.startRunner(m);
    });
  }

  disable(name: string): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      await this.stopRunner(m, true, 'Stopped');
      if (m.definition.enabled) await this.saveDefinition(m, { enabled: false });
    });
  }

  abort(name: string): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      await this.stopRunner(m, false, 'Aborted');
      if (m.definition.enabled) await this.saveDefinition(m, { enabled: false });
    });
  }

  /** Reprocesses from the start: a new epoch, so earlier checkpoints are ignored and emitted streams start over. */
  reset(name: string): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      const wasRunning = m.runner !== null;
      await this.stopRunner(m, false, 'Stopped');
      await this.saveDefinition(m, { epoch: m.definition.version + 1 });
      m.idle = idleProgress();
      m.lastUserRunner = null;
      if (wasRunning || m.definition.enabled) this.startRunner(m);
    });
  }

  delete(name: string, flags: DeleteFlags = {}): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      if (isSystemProjectionName(name))
        throw new ProjectionCommandError("We currently don't allow for the deletion of System Projections.");
      const status = m.runner?.progress.status;
      if (status === 'Running')
        throw new ProjectionCommandError("Cannot delete a projection that hasn't been stopped or faulted.");
      await this.stopRunner(m, false, 'Stopped');
      this.projections.delete(name);
      if (m.definition.mode === 'Transient') return;
      const definition = { ...m.definition, enabled: false, deleted: true, ...flags };
      await this.host.runSystemWrite((w) => {
        writeDefinition(w, name, definition);
        unregisterProjection(w, name);
        deleteProjectionStreams(w, this.host.store, name, flags, definition.trackEmittedStreams === true);
      });
    });
  }

  private restarting = false;

  /**
   * RestartSubsystem: every projection stops (saving the position it reached, as Disable does) and every
   * enabled one starts again from its checkpoint; a faulted one gets a fresh start. Definitions are unchanged.
   */
  restartSubsystem(): Promise<void> {
    if (this.restarting)
      return Promise.reject(
        new SubsystemRestartError('Projection Subsystem cannot be restarted as it is in the wrong state: Restarting'),
      );
    this.restarting = true;
    return this.command(async () => {
      try {
        const all = [...this.projections.values()];
        await Promise.all(all.map((m) => this.stopRunner(m, true, 'Stopped')));
        for (const m of all) if (m.definition.enabled) this.startRunner(m);
      } finally {
        this.restarting = false;
      }
    });
  }

  async close(): Promise<void> {
    await this.queue;
    await Promise.all([...this.projections.values()].map((m) => this.stopRunner(m, true, 'Stopped')));
  }
}

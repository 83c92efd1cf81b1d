/**
 * The projections subsystem: loads the registry from the log, registers the standard projections on
 * first start, and runs what the mode allows (`none`: nothing is loaded; `system`: only `$` projections
 * run; `all`: every projection). Commands change the definition in the log first, then the runner.
 */
import type { Logger } from '../../logger.ts';
import type { SystemWriter } from '../store/system-writer.ts';
import type { EventStore } from '../store/types.ts';
import type { ProjectionVersion } from './checkpoint-tag.ts';
import type { ProjectionDefinition } from './definition.ts';
import {
  isSystemProjectionName,
  PROJECTION_SUBSYSTEM_VERSION,
  SystemProjectionNames,
  type SystemProjectionName,
} from './names.ts';
import { readRegistry, registerProjections, writeDefinition, type RegisteredProjection } from './registry.ts';
import { SYSTEM_DEFAULT_QUERIES, SYSTEM_HANDLER_TYPES, systemHandler } from './system/handlers.ts';
import { idleProgress, SystemProjectionRunner, type ProjectionHost, type RunnerProgress } from './system/runner.ts';

export type RunProjections = 'none' | 'system' | 'all';
export const RUN_PROJECTIONS_VALUES: readonly RunProjections[] = ['none', 'system', 'all'];

export interface ProjectionsOptions {
  mode: RunProjections;
  logger: Logger;
}

export interface ProjectionsEventLog {
  store: EventStore;
  runSystemWrite<T>(fn: (w: SystemWriter) => T): Promise<T>;
}

/** A projection as the statistics and the commands see it. */
export interface ProjectionEntry {
  name: string;
  id: number;
  definition: ProjectionDefinition;
  progress: RunnerProgress;
}

export class ProjectionNotFoundError extends Error {}
export class ProjectionCommandError extends Error {}

const SYSTEM_ORDER: SystemProjectionName[] = [
  SystemProjectionNames.Streams,
  SystemProjectionNames.StreamByCategory,
  SystemProjectionNames.ByCategory,
  SystemProjectionNames.ByEventType,
  SystemProjectionNames.ByCorrelationId,
];

interface Managed {
  name: string;
  id: number;
  definition: ProjectionDefinition;
  runner: SystemProjectionRunner | null;
  /** Progress kept when there is no runner (never started, or a definition that failed to load). */
  idle: RunnerProgress;
}

export class ProjectionManager {
  readonly mode: RunProjections;
  private readonly host: ProjectionHost;
  private readonly projections = new Map<string, Managed>();
  /** Commands run one at a time: each reads and writes the definition it changes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(eventLog: ProjectionsEventLog, options: ProjectionsOptions) {
    this.mode = options.mode;
    this.host = { store: eventLog.store, runSystemWrite: (fn) => eventLog.runSystemWrite(fn), logger: options.logger };
  }

  async start(): Promise<void> {
    const registry = readRegistry(this.host.store);
    const missing = SYSTEM_ORDER.filter((n) => !registry.projections.some((p) => p.name === n));
    if (missing.length > 0)
      registry.projections.push(...(await this.createSystemProjections(missing, !registry.initialized)));
    for (const p of registry.projections) {
      this.projections.set(p.name, { ...p, runner: null, idle: idleProgress() });
    }
    for (const m of this.projections.values()) if (m.definition.enabled) this.startRunner(m);
  }

  /** Registers the standard projections created disabled (version 0), then enables them (version 1) as EventStoreDB's `StartStandardProjections` would. */
  private createSystemProjections(names: SystemProjectionName[], initialize: boolean): Promise<RegisteredProjection[]> {
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
    const version: ProjectionVersion = { id: m.id, epoch: m.definition.epoch, version: m.definition.version };
    try {
      if (!isSystemProjectionName(m.name)) return;
      const handler = systemHandler(m.name as SystemProjectionName, m.definition.query);
      m.runner = new SystemProjectionRunner(this.host, m.name, version, handler);
      m.runner.start();
    } catch (err) {
      m.idle = { ...idleProgress(), status: 'Faulted', stateReason: (err as Error).message };
    }
  }

  list(): ProjectionEntry[] {
    return [...this.projections.values()].map((m) => this.entry(m));
  }

  get(name: string): ProjectionEntry {
    return this.entry(this.managed(name));
  }

  private entry(m: Managed): ProjectionEntry {
    return { name: m.name, id: m.id, definition: m.definition, progress: m.runner?.progress ?? m.idle };
  }

  private managed(name: string): Managed {
    const m = this.projections.get(name);
    if (!m) throw new ProjectionNotFoundError(`Projection '${name}' not found`);
    return m;
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
    m.definition = await this.host.runSystemWrite((w) => writeDefinition(w, m.name, next));
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

  /** Reprocesses from the start: a new epoch, so earlier checkpoints are ignored. */
  reset(name: string): Promise<void> {
    return this.command(async () => {
      const m = this.managed(name);
      const wasRunning = m.runner !== null;
      await this.stopRunner(m, false, 'Stopped');
      const nextVersion = m.definition.version + 1;
      await this.saveDefinition(m, { epoch: nextVersion });
      m.idle = idleProgress();
      if (wasRunning || m.definition.enabled) this.startRunner(m);
    });
  }

  async close(): Promise<void> {
    await this.queue;
    await Promise.all([...this.projections.values()].map((m) => this.stopRunner(m, true, 'Stopped')));
  }
}

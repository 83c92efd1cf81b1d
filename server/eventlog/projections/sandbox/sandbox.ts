/**
 * One projection's sandbox, seen from the server's thread: a worker running QuickJS (see
 * worker-source.ts). Calls are answered or the worker is terminated: a query that ignores its
 * deadline, or a worker that runs out of its heap, ends as an error, never as a stuck server.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { PRELUDE } from './prelude.ts';
import { SANDBOX_WORKER_SOURCE } from './worker-source.ts';

export interface SandboxLimits {
  /** Each handler call (and `$init`, `partitionBy`, transforms): EventStoreDB's ProjectionExecutionTimeout. */
  executionMs: number;
  /** Evaluating the query: ProjectionCompilationTimeout. */
  compileMs: number;
  /** The QuickJS heap of one projection (states, partitions, anything the query allocates). */
  memoryBytes: number;
  stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  executionMs: 250,
  compileMs: 500,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
};

/** Time the worker gets beyond its own deadlines before it is terminated. */
const WATCHDOG_GRACE_MS = 5000;

export class SandboxError extends Error {}

export interface ProcessReply {
  outputs: string[];
  /** Index of the event whose handler failed, with the error. */
  failedAt?: number;
  error?: string;
}

const require = createRequire(import.meta.url);

/** The npm packages the sandbox worker loads (resolved below; they also need the files next to them: the QuickJS wasm). */
export const SANDBOX_PACKAGES = ['quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync'] as const;

/**
 * Inside a packaged app the modules resolve into app.asar, which a worker thread cannot be trusted to read
 * (nor the wasm beside them); electron-builder.yml unpacks these packages to app.asar.unpacked, loaded from there.
 */
export function unpackedPath(file: string): string {
  return file.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
}

export class ProjectionSandbox {
  private readonly worker: Worker;
  private readonly limits: SandboxLimits;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (m: never) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;

  constructor(limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS) {
    this.limits = limits;
    this.worker = new Worker(SANDBOX_WORKER_SOURCE, {
      eval: true,
      workerData: {
        coreModule: unpackedPath(require.resolve('quickjs-emscripten-core')),
        variantModule: unpackedPath(require.resolve('@jitl/quickjs-wasmfile-release-sync')),
      },
      // The worker's own JavaScript heap, on top of QuickJS's limit (which lives inside it).
      resourceLimits: {
        maxOldGenerationSizeMb: Math.ceil((limits.memoryBytes * 2) / 1024 / 1024) + 32,
        stackSizeMb: 4,
      },
    });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; error?: string }) => {
      const waiter = this.pending.get(m.id);
      if (!waiter) return;
      this.pending.delete(m.id);
      waiter.resolve(m as never);
    });
    const fail = (err: Error) => {
      this.dead ??= err;
      for (const w of this.pending.values()) w.reject(this.dead);
      this.pending.clear();
    };
    this.worker.on('error', (err) => fail(new SandboxError(`The projection sandbox failed: ${err.message}`)));
    this.worker.on('exit', () => fail(new SandboxError('The projection sandbox stopped.')));
  }

  private request<T>(message: Record<string, unknown>, budgetMs: number): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new SandboxError('Projection script took too long to execute (the sandbox stopped answering)'));
        void this.worker.terminate();
      }, budgetMs + WATCHDOG_GRACE_MS);
      timer.unref();
      this.pending.set(id, {
        resolve: (m: never) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.worker.postMessage({ ...message, id, ...this.limits });
    });
  }

  /** Evaluates the query; resolves with its source definition JSON, rejects with the compile error. */
  async compile(query: string): Promise<string> {
    const reply = await this.request<{ definition?: string; error?: string }>(
      { type: 'compile', query, prelude: PRELUDE },
      this.limits.compileMs * 4,
    );
    if (reply.error !== undefined || reply.definition === undefined)
      throw new SandboxError(reply.error ?? 'no definition');
    return reply.definition;
  }

  /** Puts states back after a restart. */
  async load(states: [string, string][], shared: string | null): Promise<void> {
    const reply = await this.request<{ error?: string }>(
      { type: 'load', states, shared },
      this.limits.executionMs * (states.length + 1),
    );
    if (reply.error !== undefined) throw new SandboxError(reply.error);
  }

  /** Runs the handlers for a batch of event envelopes (JSON text each). */
  async process(events: string[]): Promise<ProcessReply> {
    const reply = await this.request<ProcessReply>(
      { type: 'process', events },
      this.limits.executionMs * events.length,
    );
    if (reply.error !== undefined && reply.failedAt === undefined) throw new SandboxError(reply.error);
    return reply;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

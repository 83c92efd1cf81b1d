/**
 * Replications a running server carries out for its UI: one side is this server's own store ("local"), the
 * other a connection string. Each runs until it finishes, fails or is stopped; the list keeps finished ones
 * (the last few) with their summary or error so the page can show how they ended.
 */
import crypto from 'node:crypto';
import { linkLocalRefusal } from '../../security/index.ts';
import type { EventStore } from '../store/index.ts';
import { defaultReplicationName } from './checkpoint.ts';
import {
  EndpointError,
  endpointHosts,
  needsPassword,
  parseEndpoint,
  remoteEndpoint,
  withPassword,
  type Endpoint,
  type EndpointSpec,
} from './endpoints.ts';
import { localEndpoint } from './local.ts';
import { NO_FILTER } from './plan.ts';
import type { ReplicationProgress } from './progress.ts';
import { replicate, type ReplicationSummary } from './replicator.ts';

export const LOCAL = 'local';
const KEEP_FINISHED = 20;
const MAX_RUNNING = 8;

export interface ReplicationRequest {
  /** "local" (this server's store) or a connection string; exactly one side is local. */
  from: string;
  to: string;
  /** The password of the user the remote address names (kept out of the address so it is never shown). */
  password?: string;
  continuous?: boolean;
  intoExisting?: boolean;
  name?: string;
  streamPrefixes?: string[];
  eventTypePrefixes?: string[];
}

export interface ReplicationJob {
  id: string;
  /** Descriptions without credentials. */
  from: string;
  to: string;
  continuous: boolean;
  startedAt: number;
  state: 'running' | 'finished' | 'failed' | 'stopped';
  progress: ReplicationProgress | null;
  summary: ReplicationSummary | null;
  error: string | null;
}

export class ReplicationRequestError extends Error {}

/** A client library's error may quote the address it was given: the passwords in the request never reach the list. */
function withoutPasswords(message: string, request: ReplicationRequest): string {
  const passwords = [request.password];
  for (const raw of [request.from, request.to]) {
    try {
      passwords.push(decodeURIComponent(new URL(raw).password), new URL(raw).password);
    } catch {
      /* "local", or not an address */
    }
  }
  let safe = message;
  for (const p of passwords) if (p) safe = safe.replaceAll(p, '•••');
  return safe;
}

export class ReplicationManager {
  private readonly jobs = new Map<string, { job: ReplicationJob; stop: AbortController; done: Promise<void> }>();
  private readonly store: EventStore;

  constructor(store: EventStore) {
    this.store = store;
  }

  /**
   * One side: this server's store, or a server's address. The owner may reach their own machine and network
   * (a KurrentDB on localhost or the LAN is what this is for), never link-local or metadata addresses.
   */
  private async side(raw: string, password: string | undefined): Promise<Endpoint> {
    if (raw === LOCAL) {
      const local = localEndpoint(this.store, 'this Homeport');
      return {
        description: local.description,
        openSource: async () => local.source(),
        openTarget: async () => local.target(),
        close: async () => {},
      };
    }
    let parsed;
    try {
      parsed = parseEndpoint(raw);
    } catch (err) {
      if (err instanceof EndpointError) throw new ReplicationRequestError(`the address ${err.message}`);
      throw err;
    }
    if (parsed.kind === 'local') throw new ReplicationRequestError('give "local" or a tcp:// / kurrentdb:// address');
    let spec: Exclude<EndpointSpec, { kind: 'local' }> = parsed;
    if (needsPassword(spec)) {
      if (password === undefined)
        throw new ReplicationRequestError('the address names a user without a password: give the password');
      spec = withPassword(spec, password) as typeof spec;
    }
    for (const host of endpointHosts(spec)) {
      const refusal = await linkLocalRefusal(host);
      if (refusal) throw new ReplicationRequestError(refusal);
    }
    return remoteEndpoint(spec);
  }

  async start(request: ReplicationRequest): Promise<ReplicationJob> {
    if ((request.from === LOCAL) === (request.to === LOCAL))
      throw new ReplicationRequestError('exactly one side must be "local" (this Homeport)');
    if ([...this.jobs.values()].filter((j) => j.job.state === 'running').length >= MAX_RUNNING)
      throw new ReplicationRequestError(`at most ${MAX_RUNNING} replications run at once`);
    const source = await this.side(request.from, request.password);
    const target = await this.side(request.to, request.password);
    const job: ReplicationJob = {
      id: crypto.randomUUID(),
      from: source.description,
      to: target.description,
      continuous: request.continuous === true,
      startedAt: Date.now(),
      state: 'running',
      progress: null,
      summary: null,
      error: null,
    };
    const stop = new AbortController();
    const done = replicate({
      openSource: () => source.openSource(),
      openTarget: () => target.openTarget(),
      name: request.name ?? defaultReplicationName(source.description),
      filter: {
        ...NO_FILTER,
        streamPrefixes: request.streamPrefixes ?? [],
        eventTypePrefixes: request.eventTypePrefixes ?? [],
      },
      continuous: job.continuous,
      intoExisting: request.intoExisting === true,
      signal: stop.signal,
      onProgress: (p) => {
        job.progress = p;
      },
    }).then(
      (summary) => {
        job.summary = summary;
        job.state = stop.signal.aborted ? 'stopped' : 'finished';
      },
      (err: unknown) => {
        job.error = withoutPasswords((err as Error).message, request);
        job.state = 'failed';
      },
    );
    this.jobs.set(job.id, { job, stop, done });
    this.forgetOldFinished();
    return job;
  }

  list(): ReplicationJob[] {
    return [...this.jobs.values()].map((j) => j.job);
  }

  /** Stops a running replication (it finishes its current page first); false when there is none such. */
  async stop(id: string): Promise<boolean> {
    const entry = this.jobs.get(id);
    if (!entry) return false;
    entry.stop.abort();
    await entry.done;
    return true;
  }

  async close(): Promise<void> {
    for (const entry of this.jobs.values()) entry.stop.abort();
    await Promise.all([...this.jobs.values()].map((e) => e.done));
  }

  private forgetOldFinished(): void {
    const finished = [...this.jobs.values()].filter((j) => j.job.state !== 'running');
    for (const entry of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(entry.job.id);
  }
}

/**
 * Test support: an event log with its TCP listener and the projections subsystem in a temporary folder,
 * a reopenable data folder (restart tests), and waits that fail instead of hanging.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { openEventLog, type EventLog } from '../../eventlog.ts';
import { startSubscriptions } from '../../subscriptions/index.ts';
import { subscriptionTcpHandlers } from '../../subscriptions/tcp-handlers.ts';
import { startEventLogTcp, type EventLogTcpServer } from '../../tcp/server.ts';
import { ExpectedVersion, type NewEvent } from '../../store/types.ts';
import { startProjections } from '../index.ts';
import type { RunProjections } from '../commands.ts';
import type { ProjectionManager } from '../manager.ts';
import type { SandboxLimits } from '../sandbox/sandbox.ts';

export interface ProjectionsFixture {
  dataDir: string;
  eventLog: EventLog;
  projections: ProjectionManager | null;
  tcp: EventLogTcpServer;
  endpoint: string;
  /** Closes everything but keeps the data folder. */
  stop(): Promise<void>;
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-projections-'));
}

export async function startFixture(
  dataDir: string,
  mode: RunProjections = 'all',
  sandboxLimits?: SandboxLimits,
): Promise<ProjectionsFixture> {
  const logger = pino({ level: 'silent' });
  const eventLog = await openEventLog({ dataDir, logger });
  const projections = await startProjections(eventLog, { mode, logger, sandboxLimits });
  const subscriptions = startSubscriptions(eventLog.store, { logger });
  const tcp = await startEventLogTcp(eventLog, {
    host: '127.0.0.1',
    port: 0,
    tlsPort: null,
    dataDir,
    logger,
    handlers: [subscriptionTcpHandlers(subscriptions)],
  });
  return {
    dataDir,
    eventLog,
    projections,
    tcp,
    endpoint: `tcp://127.0.0.1:${tcp.tcp.port}`,
    async stop() {
      await tcp.close();
      await subscriptions.close();
      await projections?.close();
      await eventLog.close();
    },
  };
}

/** One fixture (projections `all`, a temporary data folder removed afterwards) for a test file. */
export function useProjectionsFixture(): { readonly fx: ProjectionsFixture; readonly manager: ProjectionManager } {
  let dataDir = '';
  let fx: ProjectionsFixture | null = null;
  beforeAll(async () => {
    dataDir = tempDataDir();
    fx = await startFixture(dataDir);
  });
  afterAll(async () => {
    await fx?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    get fx() {
      if (!fx) throw new Error('the fixture is not started');
      return fx;
    },
    get manager() {
      if (!fx?.projections) throw new Error('the projections are not started');
      return fx.projections;
    },
  };
}

/** A projection's partition state ('' = root) parsed, or undefined when it has none. */
export function parsedState(manager: ProjectionManager, name: string, partition = ''): any {
  const s = manager.state(name, partition);
  return s === '' ? undefined : JSON.parse(s);
}

/** Polls `check` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every running projection has read to the end of the log (its own writes included). */
export function caughtUp(manager: ProjectionManager, eventLog: EventLog): boolean {
  const head = eventLog.store.lastCommitPosition();
  return manager
    .list()
    .filter((p) => p.progress.status === 'Running')
    .every((p) => p.progress.position?.kind === 'position' && p.progress.position.commitPosition >= head);
}

export async function waitCaughtUp(manager: ProjectionManager, eventLog: EventLog): Promise<void> {
  await waitFor('projections to catch up', () => caughtUp(manager, eventLog));
}

export function jsonEvent(eventType: string, data: unknown, metadata?: unknown): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType,
    isJson: true,
    data: Buffer.from(JSON.stringify(data)),
    metadata: metadata === undefined ? new Uint8Array(0) : Buffer.from(JSON.stringify(metadata)),
  };
}

/** Appends as the admin would (through the store, as a client write does). */
export async function append(eventLog: EventLog, streamId: string, events: NewEvent[]): Promise<void> {
  const r = await eventLog.store.appendToStream(streamId, ExpectedVersion.Any, events, {
    name: 'admin',
    groups: ['$admins'],
  });
  if (r.result !== 'Success') throw new Error(`append to ${streamId}: ${r.result}`);
}

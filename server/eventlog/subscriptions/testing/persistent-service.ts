/** A persistent subscriptions service on a temporary event log for each test, with helpers to drive its groups. */
import { afterEach, beforeEach, expect } from 'vitest';
import type { Caller, EventStore, ResolvedIndexedEvent } from '../../store/index.ts';
import { ManualClock } from '../clock.ts';
import { SUBSCRIPTIONS_SYSTEM_PRINCIPAL } from '../index.ts';
import { checkpointStreamOf } from '../persistent/group-streams.ts';
import { PersistentSubscriptions } from '../persistent/service.ts';
import type { DropReason, NakAction, PersistentSubscriptionSettings } from '../types.ts';
import { admin, openTempEventLog, removeDir, silentLogger, text, type TempEventLog } from './event-log.ts';

/** Small, test-friendly settings: checkpoints only when a test asks for them. */
export function settings(
  overrides: Partial<PersistentSubscriptionSettings> = {},
): Partial<PersistentSubscriptionSettings> {
  return {
    startFrom: 0,
    messageTimeoutMs: 0,
    maxRetryCount: 3,
    checkpointAfterMs: 0,
    maxCheckpointCount: 1_000_000,
    minCheckpointCount: 1,
    ...overrides,
  };
}

export interface Received {
  event: ResolvedIndexedEvent;
  retryCount: number;
}

/** The current test's log, clock and service (a test may reopen the log and start another service on it). */
export class PersistentFixture {
  log!: TempEventLog;
  clock!: ManualClock;
  service!: PersistentSubscriptions;
  readonly services: PersistentSubscriptions[] = [];

  startService(store: EventStore): PersistentSubscriptions {
    const s = new PersistentSubscriptions({
      store,
      logger: silentLogger,
      clock: this.clock,
      system: SUBSCRIPTIONS_SYSTEM_PRINCIPAL,
    });
    s.start();
    this.services.push(s);
    return s;
  }

  async createGroup(stream: string, group: string, overrides: Partial<PersistentSubscriptionSettings> = {}) {
    const result = await this.service.create(stream, group, settings(overrides), admin);
    expect(result).toEqual({ result: 'Success' });
  }

  connect(
    stream: string,
    group: string,
    window = 10,
    options: { caller?: Caller; name?: string; on?: PersistentSubscriptions } = {},
  ) {
    const received: Received[] = [];
    const drops: DropReason[] = [];
    const result = (options.on ?? this.service).connect({
      streamId: stream,
      groupName: group,
      allowedInFlightMessages: window,
      caller: options.caller ?? admin,
      subscriber: {
        connectionId: options.name ?? 'conn',
        connectionName: options.name ?? 'consumer',
        remoteAddress: '127.0.0.1:5000',
        caller: admin,
      },
      sink: {
        eventAppeared: (event, retryCount) => {
          received.push({ event, retryCount });
          return true;
        },
        dropped: (reason) => {
          drops.push(reason);
        },
      },
    });
    if (!result.ok) throw new Error(`connect failed: ${result.reason}`);
    result.consumer.start();
    const original = (r: Received) => (r.event.link ?? r.event.event)!;
    return {
      received,
      drops,
      handle: result.consumer,
      confirmation: result.confirmation,
      numbers: () => received.map((r) => original(r).eventNumber),
      idOf: (n: number) => original(received.find((r) => original(r).eventNumber === n)!).eventId,
      ack(...numbers: number[]) {
        result.consumer.ack(numbers.map((n) => this.idOf(n)));
      },
      nak(action: NakAction, ...numbers: number[]) {
        result.consumer.nak(
          numbers.map((n) => this.idOf(n)),
          action,
          'test says so',
        );
      },
      ackAll() {
        result.consumer.ack(received.map((r) => original(r).eventId));
      },
    };
  }
}

/** The checkpoint a group wrote last, or null. */
export function readCheckpoint(store: EventStore, stream: string, group: string): number | null {
  const r = store.readStreamBackward(checkpointStreamOf(stream, group), -1, 1, false, admin);
  if (r.result !== 'Success' || r.events.length === 0) return null;
  return Number(JSON.parse(text(r.events[0].event!.data)));
}

/** A fresh log, clock and service before each test of the file, closed and removed after it. */
export function usePersistentService(): PersistentFixture {
  const t = new PersistentFixture();
  beforeEach(async () => {
    t.log = await openTempEventLog();
    t.clock = new ManualClock();
    t.service = t.startService(t.log.store);
  });
  afterEach(async () => {
    for (const s of t.services.splice(0)) await s.close();
    await t.log.close();
    removeDir(t.log.dir);
  });
  return t;
}

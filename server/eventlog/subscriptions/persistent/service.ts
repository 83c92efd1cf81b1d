import type { Logger } from '../../../logger.ts';
import {
  ExpectedVersion,
  type Caller,
  type CommittedBatch,
  type EventStore,
  type Principal,
  type RecordedEvent,
} from '../../store/index.ts';
import type { Clock } from '../clock.ts';
import type {
  CreateGroupResult,
  DeleteGroupResult,
  NakAction,
  ParkedPage,
  PersistentConnectRequest,
  PersistentConnectResult,
  PersistentGroupDetail,
  PersistentGroupInfo,
  PersistentGroupSettings,
  UpdateGroupResult,
} from '../types.ts';
import { PersistentGroup } from './group.ts';
import { ALL_STREAM } from './group-source.ts';
import { checkpointStreamOf, groupKey, parkedStreamOf, type GroupContext } from './group-streams.ts';
import { loadDefinitions, saveDefinitions } from './definitions.ts';
import { fromStoredEntry, normalizeSettings, toStoredEntry, type StoredGroupEntry } from './settings.ts';

function mayManage(caller: Caller): boolean {
  return caller !== null && (caller.groups.includes('$admins') || caller.groups.includes('$ops'));
}

function isAllStream(streamId: string): boolean {
  return streamId === '' || streamId === '$all';
}

export interface PersistentSubscriptionsOptions {
  store: EventStore;
  logger: Logger;
  clock: Clock;
  system: Principal;
}

/**
 * All persistent subscription groups: their definitions (kept in `$persistentSubscriptionConfig`),
 * management (create/update/delete, with EventStoreDB's results), consumer connections and the
 * monitor's view.
 */
export class PersistentSubscriptions {
  private readonly store: EventStore;
  private readonly logger: Logger;
  private readonly ctx: GroupContext;
  private readonly groups = new Map<string, PersistentGroup>();
  private readonly byStream = new Map<string, Set<PersistentGroup>>();
  /** Definitions in creation order, as stored. */
  private entries: StoredGroupEntry[] = [];
  /** Management operations run one at a time: each rewrites the whole definition document. */
  private queue: Promise<unknown> = Promise.resolve();
  private stopListening: (() => void) | null = null;
  private closed = false;

  constructor(options: PersistentSubscriptionsOptions) {
    this.store = options.store;
    this.logger = options.logger;
    this.ctx = { store: options.store, logger: options.logger, clock: options.clock, system: options.system };
  }

  /** Loads the stored definitions and starts every group from its checkpoint. */
  start(): void {
    this.stopListening = this.store.onCommitted((batch) => this.onCommitted(batch));
    this.entries = loadDefinitions(this.ctx);
    for (const entry of this.entries) {
      const settings = fromStoredEntry(entry);
      if (typeof settings === 'string') {
        this.logger.error(
          { stream: entry.stream, group: entry.group, problem: settings },
          'skipping a stored persistent subscription with bad settings',
        );
        continue;
      }
      const group = this.addGroup(entry.stream, entry.group, settings);
      void group
        .start()
        .catch((err: unknown) =>
          this.logger.warn({ err, group: group.subscriptionId }, 'initial checkpoint write failed'),
        );
    }
    if (this.groups.size > 0) this.logger.info({ groups: this.groups.size }, 'persistent subscriptions started');
  }

  // ---- management -----------------------------------------------------------------------------------

  /** `options.toAll`: `$all` names the global log (gRPC's groups to `$all`; the TCP protocol has none). */
  create(
    streamId: string,
    groupName: string,
    settings: Partial<PersistentGroupSettings>,
    caller: Caller,
    options: { toAll?: boolean } = {},
  ): Promise<CreateGroupResult> {
    if (!mayManage(caller))
      return Promise.resolve({
        result: 'AccessDenied',
        reason: 'Only $admins and $ops may manage persistent subscriptions.',
      });
    if (isAllStream(streamId) && !(options.toAll && streamId === ALL_STREAM))
      return Promise.resolve({
        result: 'Fail',
        reason: 'Persistent subscriptions to $all are not supported over TCP.',
      });
    if (!isAllStream(streamId) && settings.filter)
      return Promise.resolve({ result: 'Fail', reason: 'Only groups on $all take a filter.' });
    if (streamId.trim() === '') return Promise.resolve({ result: 'Fail', reason: 'Bad stream name.' });
    if (groupName.trim() === '') return Promise.resolve({ result: 'Fail', reason: 'Group name must not be empty.' });
    const normalized = normalizeSettings(settings);
    if (typeof normalized === 'string') return Promise.resolve({ result: 'Fail', reason: normalized });
    return this.serialized(async (): Promise<CreateGroupResult> => {
      if (this.closed) return { result: 'Fail', reason: 'The server is shutting down.' };
      const key = groupKey(streamId, groupName);
      if (this.groups.has(key))
        return { result: 'AlreadyExists', reason: `Group '${groupName}' already exists on stream '${streamId}'.` };
      const entries = [...this.entries, toStoredEntry(streamId, groupName, normalized)];
      const saved = await saveDefinitions(this.ctx, entries, caller);
      if (saved) return { result: 'Fail', reason: saved };
      this.entries = entries;
      const group = this.addGroup(streamId, groupName, normalized);
      await group.start();
      this.logger.info({ group: key, by: caller?.name }, 'persistent subscription created');
      return { result: 'Success' };
    });
  }

  update(
    streamId: string,
    groupName: string,
    settings: Partial<PersistentGroupSettings>,
    caller: Caller,
  ): Promise<UpdateGroupResult> {
    if (!mayManage(caller))
      return Promise.resolve({
        result: 'AccessDenied',
        reason: 'Only $admins and $ops may manage persistent subscriptions.',
      });
    // An update leaves a `$all` group's filter as it was (KurrentDB's Update carries none).
    const filter = settings.filter ?? this.groups.get(groupKey(streamId, groupName))?.settings.filter;
    const normalized = normalizeSettings({ ...settings, filter });
    if (typeof normalized === 'string') return Promise.resolve({ result: 'Fail', reason: normalized });
    return this.serialized(async (): Promise<UpdateGroupResult> => {
      if (this.closed) return { result: 'Fail', reason: 'The server is shutting down.' };
      const key = groupKey(streamId, groupName);
      const old = this.groups.get(key);
      if (!old)
        return { result: 'DoesNotExist', reason: `Group '${groupName}' does not exist on stream '${streamId}'.` };
      const entries = this.entries.map((e) =>
        e.stream === streamId && e.group === groupName ? toStoredEntry(streamId, groupName, normalized) : e,
      );
      const saved = await saveDefinitions(this.ctx, entries, caller);
      if (saved) return { result: 'Fail', reason: saved };
      this.entries = entries;
      // Consumers are told Unsubscribed (as EventStoreDB does) and reconnect to the new settings.
      const resumeAfter = old.stop('Unsubscribed');
      this.removeGroup(old);
      const group = this.addGroup(streamId, groupName, normalized);
      await group.start(resumeAfter);
      this.logger.info({ group: key, by: caller?.name }, 'persistent subscription updated');
      return { result: 'Success' };
    });
  }

  delete(streamId: string, groupName: string, caller: Caller): Promise<DeleteGroupResult> {
    if (!mayManage(caller))
      return Promise.resolve({
        result: 'AccessDenied',
        reason: 'Only $admins and $ops may manage persistent subscriptions.',
      });
    return this.serialized(async (): Promise<DeleteGroupResult> => {
      if (this.closed) return { result: 'Fail', reason: 'The server is shutting down.' };
      const key = groupKey(streamId, groupName);
      const group = this.groups.get(key);
      if (!group)
        return { result: 'DoesNotExist', reason: `Group '${groupName}' does not exist on stream '${streamId}'.` };
      const entries = this.entries.filter((e) => !(e.stream === streamId && e.group === groupName));
      const saved = await saveDefinitions(this.ctx, entries, caller);
      if (saved) return { result: 'Fail', reason: saved };
      this.entries = entries;
      group.stop('Unsubscribed');
      this.removeGroup(group);
      await group.settled(); // a checkpoint write in flight lands before its stream is deleted
      for (const stream of [checkpointStreamOf(streamId, groupName), parkedStreamOf(streamId, groupName)]) {
        try {
          const result = await this.store.deleteStream(stream, ExpectedVersion.Any, false, this.ctx.system);
          if (result.result !== 'Success')
            this.logger.warn({ stream, result: result.result }, 'could not delete a persistent subscription stream');
        } catch (err) {
          this.logger.warn({ err, stream }, 'could not delete a persistent subscription stream');
        }
      }
      this.logger.info({ group: key, by: caller?.name }, 'persistent subscription deleted');
      return { result: 'Success' };
    });
  }

  // ---- consumers ------------------------------------------------------------------------------------

  connect(request: PersistentConnectRequest): PersistentConnectResult {
    if (this.closed) return { ok: false, reason: 'ServerShutdown' };
    if (!this.store.checkReadAccess(request.streamId, request.caller)) return { ok: false, reason: 'AccessDenied' };
    const group = this.groups.get(groupKey(request.streamId, request.groupName));
    if (!group) return { ok: false, reason: 'NotFound' };
    if (group.isFull) return { ok: false, reason: 'SubscriberMaxCountReached' };

    const confirmation = {
      lastCommitPosition: this.store.lastCommitPosition(),
      subscriptionId: group.subscriptionId,
      lastEventNumber: this.store.lastEventNumber(request.streamId),
    };
    // The confirmation must reach the client before the first event: hand it out first, then attach.
    let consumerId: string | null = null;
    let ended = false;
    const consumer = {
      id: '',
      subscriptionId: group.subscriptionId,
      ack: (eventIds: readonly string[]) => {
        if (consumerId) group.ack(consumerId, eventIds);
      },
      nak: (eventIds: readonly string[], action: NakAction, message?: string) => {
        if (consumerId) group.nak(consumerId, eventIds, action, message ?? '');
      },
      unsubscribe: () => {
        if (ended) return;
        ended = true;
        if (consumerId) group.removeConsumer(consumerId, 'Unsubscribed');
        else request.sink.dropped('Unsubscribed');
      },
      close: () => {
        if (ended) return;
        ended = true;
        if (consumerId) group.removeConsumer(consumerId, null);
      },
      /** Starts delivery; the transport calls this right after sending the confirmation. */
      start: () => {
        if (ended || consumerId) return;
        consumerId = group.addConsumer(request.subscriber, request.sink, request.allowedInFlightMessages).id;
        consumer.id = consumerId;
      },
    };
    return { ok: true, confirmation, consumer };
  }

  // ---- monitor --------------------------------------------------------------------------------------

  list(): PersistentGroupInfo[] {
    return [...this.groups.values()].map((g) => g.info());
  }

  get(streamId: string, groupName: string): PersistentGroupDetail | undefined {
    return this.groups.get(groupKey(streamId, groupName))?.detail();
  }

  listParked(
    streamId: string,
    groupName: string,
    options: { from?: number; count?: number } = {},
  ): ParkedPage | undefined {
    return this.groups.get(groupKey(streamId, groupName))?.listParked(options.from ?? 0, options.count ?? 50);
  }

  /** Replays parked messages back into the group; returns how many were queued, or undefined for an unknown group. */
  replayParked(streamId: string, groupName: string, options: { stopAt?: number } = {}): number | undefined {
    return this.groups.get(groupKey(streamId, groupName))?.replayParked(options.stopAt);
  }

  /** Stops every group, writes final checkpoints. Consumers are not notified: their connections are closing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    this.stopListening?.();
    const groups = [...this.groups.values()];
    for (const g of groups) g.stop(null);
    await Promise.all(
      groups.map((g) =>
        g
          .flush()
          .catch((err: unknown) => this.logger.warn({ err, group: g.subscriptionId }, 'final checkpoint failed')),
      ),
    );
  }

  // ---- internals ------------------------------------------------------------------------------------

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private addGroup(streamId: string, groupName: string, settings: PersistentGroupSettings): PersistentGroup {
    const group = new PersistentGroup(this.ctx, streamId, groupName, settings);
    this.groups.set(group.subscriptionId, group);
    let set = this.byStream.get(streamId);
    if (!set) {
      set = new Set();
      this.byStream.set(streamId, set);
    }
    set.add(group);
    return group;
  }

  private removeGroup(group: PersistentGroup): void {
    this.groups.delete(group.subscriptionId);
    const set = this.byStream.get(group.streamId);
    if (set) {
      set.delete(group);
      if (set.size === 0) this.byStream.delete(group.streamId);
    }
  }

  private onCommitted(batch: CommittedBatch): void {
    if (this.byStream.size === 0) return;
    for (const group of this.byStream.get(ALL_STREAM) ?? []) this.handOver(group, batch.events);
    let perStream: Map<string, RecordedEvent[]> | null = null;
    for (const event of batch.events) {
      if (!this.byStream.has(event.streamId)) continue;
      perStream ??= new Map();
      let list = perStream.get(event.streamId);
      if (!list) {
        list = [];
        perStream.set(event.streamId, list);
      }
      list.push(event);
    }
    if (!perStream) return;
    for (const [streamId, events] of perStream)
      for (const group of this.byStream.get(streamId) ?? []) this.handOver(group, events);
  }

  private handOver(group: PersistentGroup, events: readonly RecordedEvent[]): void {
    try {
      group.onCommitted(events);
    } catch (err) {
      this.logger.error({ err, group: group.subscriptionId }, 'persistent subscription failed to take new events');
    }
  }
}

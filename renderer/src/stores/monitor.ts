import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { UiConnectionSource, UiGroupSummary, UiVolatileSubscription } from '../api/types.ts';

export interface ConnectionRow extends UiConnectionSource {
  /** Bytes per second since the previous sample; null on the first one. */
  receiveRate: number | null;
  sendRate: number | null;
}

export interface GroupRow extends UiGroupSummary {
  /** Events between the last checkpoint and the last known event. */
  behind: number | null;
  /** Seconds to catch up at the current rate; null when unknown or not moving. */
  catchUpSeconds: number | null;
}

/** Events behind and the catch-up estimate, as EventStoreDB's subscription list shows them. */
export function groupRow<T extends UiGroupSummary>(g: T): T & GroupRow {
  // Behind = not yet read and handed out (EventStoreDB's UI: last known - last processed); the checkpoint
  // trails by design (it is written every N events or seconds), so it is shown apart, not counted here.
  const behind =
    g.lastKnownEventNumber === null ? null : Math.max(0, g.lastKnownEventNumber - (g.lastProcessedEventNumber ?? -1));
  const catchUpSeconds =
    behind !== null && behind > 0 && g.averagePerSecond > 0 ? behind / g.averagePerSecond : behind === 0 ? 0 : null;
  return { ...g, behind, catchUpSeconds };
}

/** Rates from two samples of byte counters. */
export function withRates(
  previous: Map<string, { at: number; rx: number; tx: number }>,
  sampledAt: number,
  list: UiConnectionSource[],
): ConnectionRow[] {
  return list.map((c) => {
    const p = previous.get(c.id);
    const dt = p ? (sampledAt - p.at) / 1000 : 0;
    return {
      ...c,
      receiveRate: p && dt > 0 ? Math.max(0, (c.bytesReceived - p.rx) / dt) : null,
      sendRate: p && dt > 0 ? Math.max(0, (c.bytesSent - p.tx) / dt) : null,
    };
  });
}

/** Groups bucketed by their stream, streams in name order. */
export function groupsByStream(groups: GroupRow[]): { stream: string; groups: GroupRow[] }[] {
  const map = new Map<string, GroupRow[]>();
  for (const g of [...groups].sort((a, b) => a.stream.localeCompare(b.stream) || a.group.localeCompare(b.group))) {
    const list = map.get(g.stream) ?? [];
    list.push(g);
    map.set(g.stream, list);
  }
  return [...map].map(([stream, list]) => ({ stream, groups: list }));
}

/** One second of activity: events written and delivered per second, and each persistent group's lag. */
export interface ActivitySample {
  at: number;
  writtenPerSecond: number;
  deliveredPerSecond: number;
  /** Events behind, by "stream/group". */
  lag: Record<string, number>;
}

/** How much activity the charts keep: the last five minutes at one sample a second. */
export const ACTIVITY_WINDOW_MS = 5 * 60 * 1000;

/** Counters as sampled from the server (totals since start; subscriptions that end take their counts away). */
export interface ActivityCounters {
  at: number;
  written: number;
  delivered: number;
}

/** The next sample from two readings of the counters (rates never below zero: counts leave with subscriptions). */
export function nextSample(
  previous: ActivityCounters | null,
  current: ActivityCounters,
  groups: GroupRow[],
): ActivitySample | null {
  if (!previous || current.at <= previous.at) return null;
  const seconds = (current.at - previous.at) / 1000;
  return {
    at: current.at,
    writtenPerSecond: Math.max(0, (current.written - previous.written) / seconds),
    deliveredPerSecond: Math.max(0, (current.delivered - previous.delivered) / seconds),
    lag: Object.fromEntries(groups.map((g) => [`${g.stream}/${g.group}`, g.behind ?? 0])),
  };
}

interface MonitorState {
  connections: ConnectionRow[] | null;
  volatile: UiVolatileSubscription[] | null;
  groups: GroupRow[] | null;
  available: boolean;
  error: string | null;
  updatedAt: number | null;
  /** The last minutes of activity, oldest first. */
  activity: ActivitySample[];
  refresh(): Promise<void>;
  /** Polls every `intervalMs` until the returned function is called. */
  watch(intervalMs?: number): () => void;
}

export const useMonitor = create<MonitorState>((set, get) => {
  const previous = new Map<string, { at: number; rx: number; tx: number }>();
  let counters: ActivityCounters | null = null;
  let inFlight = false;
  return {
    connections: null,
    volatile: null,
    groups: null,
    available: true,
    error: null,
    updatedAt: null,
    activity: [],
    async refresh() {
      if (inFlight) return;
      inFlight = true;
      try {
        const [conns, subs, groups, activity] = await Promise.all([
          api<{ sampledAt: number; connections: UiConnectionSource[] }>('/eventlog/connections'),
          api<{ available: boolean; subscriptions: UiVolatileSubscription[] }>('/eventlog/subscriptions'),
          api<{ available: boolean; groups: UiGroupSummary[] }>('/eventlog/persistent-groups'),
          api<{ sampledAt: number; eventsWritten: number }>('/eventlog/activity'),
        ]);
        const groupRows = groups.groups.map(groupRow);
        const delivered =
          subs.subscriptions.reduce((n, v) => n + v.delivered, 0) +
          groups.groups.reduce((n, g) => n + g.totalItemsDelivered, 0);
        const current = { at: activity.sampledAt, written: activity.eventsWritten, delivered };
        const sample = nextSample(counters, current, groupRows);
        counters = current;
        const history = sample
          ? [...get().activity, sample].filter((a) => a.at > sample.at - ACTIVITY_WINDOW_MS)
          : get().activity;
        const connections = withRates(previous, conns.sampledAt, conns.connections);
        previous.clear();
        for (const c of conns.connections)
          previous.set(c.id, { at: conns.sampledAt, rx: c.bytesReceived, tx: c.bytesSent });
        set({
          connections,
          volatile: subs.subscriptions,
          groups: groupRows,
          activity: history,
          available: subs.available && groups.available,
          error: null,
          updatedAt: Date.now(),
        });
      } catch (err) {
        set({ error: (err as Error).message });
      } finally {
        inFlight = false;
      }
    },
    watch(intervalMs = 1000) {
      void get().refresh();
      const timer = setInterval(() => void get().refresh(), intervalMs);
      return () => clearInterval(timer);
    },
  };
});

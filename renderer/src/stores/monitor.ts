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

/** One second of activity, as the server samples it (server/eventlog/ui/activity.ts). */
export interface ActivitySample {
  at: number;
  writtenPerSecond: number;
  deliveredPerSecond: number;
  /** Events behind, by "stream/group". */
  lag: Record<string, number>;
}

/** How much activity the server keeps and the page holds: the last hour at one sample a second. */
export const ACTIVITY_HISTORY_MS = 60 * 60 * 1000;

/** Adds the samples newer than the history's last one, and forgets those older than an hour. */
export function mergeActivity(history: ActivitySample[], fresh: ActivitySample[]): ActivitySample[] {
  const last = history.length ? history[history.length - 1].at : 0;
  const added = fresh.filter((s) => s.at > last);
  if (added.length === 0) return history;
  const newest = added[added.length - 1].at;
  return [...history, ...added].filter((s) => s.at > newest - ACTIVITY_HISTORY_MS);
}

interface MonitorState {
  connections: ConnectionRow[] | null;
  volatile: UiVolatileSubscription[] | null;
  groups: GroupRow[] | null;
  available: boolean;
  error: string | null;
  updatedAt: number | null;
  /** The last hour of activity as the server sampled it, oldest first (full as soon as a page opens). */
  activity: ActivitySample[];
  refresh(): Promise<void>;
  /** Polls every `intervalMs` until the returned function is called. */
  watch(intervalMs?: number): () => void;
}

const lastSampleAt = (history: ActivitySample[]) => (history.length ? history[history.length - 1].at : 0);

export const useMonitor = create<MonitorState>((set, get) => {
  const previous = new Map<string, { at: number; rx: number; tx: number }>();
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
          api<{ samples: ActivitySample[] }>(`/eventlog/activity?since=${lastSampleAt(get().activity)}`),
        ]);
        const groupRows = groups.groups.map(groupRow);
        const history = mergeActivity(get().activity, activity.samples);
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

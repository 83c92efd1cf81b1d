import { create } from 'zustand';
import { api, qs } from '../api/client.ts';
import type { StreamPage, UiGroupDetail, UiGroupSettings } from '../api/types.ts';
import { expandEvery, toggleExpanded } from './live-tail.ts';
import { NEWEST, sameCursor, type StreamCursor } from './stream.ts';

/** Settings a new group starts with: the .NET client's defaults, except that it reads the stream from its beginning. */
export const DEFAULT_GROUP_SETTINGS: UiGroupSettings = {
  resolveLinkTos: false,
  startFrom: 0,
  extraStatistics: false,
  messageTimeoutMs: 30_000,
  maxRetryCount: 10,
  liveBufferSize: 500,
  readBatchSize: 20,
  historyBufferSize: 500,
  checkpointAfterMs: 2_000,
  minCheckpointCount: 10,
  maxCheckpointCount: 1_000,
  maxSubscriberCount: 0,
  consumerStrategy: 'RoundRobin',
};

export const groupPath = (stream: string, group: string) =>
  `/eventlog/persistent-groups/${encodeURIComponent(stream)}/${encodeURIComponent(group)}`;

interface GroupState {
  key: string | null;
  stream: string | null;
  group: string | null;
  detail: UiGroupDetail | null;
  loading: boolean;
  error: string | null;
  parked: StreamPage | null;
  parkedCursor: StreamCursor;
  parkedCount: number;
  parkedLoading: boolean;
  parkedError: string | null;
  parkedExpanded: Record<number, boolean>;
  open(stream: string, group: string): Promise<void>;
  refresh(): Promise<void>;
  /** Polls the statistics every `intervalMs` until the returned function is called. */
  watch(intervalMs?: number): () => void;
  loadParked(cursor?: StreamCursor): Promise<void>;
  toggleParked(n: number): void;
  expandAllParked(): void;
  collapseAllParked(): void;
  replay(stopAt: number | null): Promise<number | null>;
  update(settings: Partial<UiGroupSettings>): Promise<void>;
  remove(): Promise<void>;
}

export async function createGroup(
  stream: string,
  group: string,
  settings: Partial<UiGroupSettings>,
): Promise<UiGroupDetail | null> {
  const r = await api<{ group: UiGroupDetail | null }>(groupPath(stream, group), { method: 'POST', body: settings });
  return r.group;
}

export const useGroup = create<GroupState>((set, get) => ({
  key: null,
  stream: null,
  group: null,
  detail: null,
  loading: false,
  error: null,
  parked: null,
  parkedCursor: NEWEST,
  parkedCount: 20,
  parkedLoading: false,
  parkedError: null,
  parkedExpanded: {},
  async open(stream, group) {
    const key = `${stream}::${group}`;
    if (get().key === key) return;
    set({
      key,
      stream,
      group,
      detail: null,
      loading: true,
      error: null,
      parked: null,
      parkedCursor: NEWEST,
      parkedExpanded: {},
      parkedError: null,
    });
    await Promise.all([get().refresh(), get().loadParked(NEWEST)]);
  },
  async refresh() {
    const { stream, group, key } = get();
    if (!stream || !group) return;
    try {
      const { group: detail } = await api<{ group: UiGroupDetail }>(groupPath(stream, group));
      if (get().key === key) set({ detail, loading: false, error: null });
    } catch (err) {
      if (get().key === key) set({ error: (err as Error).message, loading: false });
    }
  },
  watch(intervalMs = 1000) {
    let last = -1;
    const timer = setInterval(() => {
      void get().refresh();
      // The parked list follows the parked count, so a Nak'ed message shows up without a reload.
      const parkedNow = get().detail?.parkedCount ?? -1;
      if (last !== -1 && parkedNow !== last && sameCursor(get().parkedCursor, NEWEST)) void get().loadParked();
      last = parkedNow;
    }, intervalMs);
    return () => clearInterval(timer);
  },
  async loadParked(cursor) {
    const { stream, group, key, parkedCount } = get();
    if (!stream || !group) return;
    const c = cursor ?? get().parkedCursor;
    set({ parkedCursor: c, parkedLoading: true, parkedError: null });
    try {
      const page = await api<StreamPage>(
        `${groupPath(stream, group)}/parked${qs({ from: c.from, direction: c.direction, count: parkedCount })}`,
      );
      if (get().key === key) set({ parked: page, parkedLoading: false });
    } catch (err) {
      if (get().key === key) set({ parkedError: (err as Error).message, parkedLoading: false });
    }
  },
  toggleParked(n) {
    set({ parkedExpanded: toggleExpanded(get().parkedExpanded, n) });
  },
  expandAllParked() {
    set({ parkedExpanded: expandEvery(get().parked?.events, (e) => e.eventNumber) });
  },
  collapseAllParked() {
    set({ parkedExpanded: {} });
  },
  async replay(stopAt) {
    const { stream, group } = get();
    if (!stream || !group) return null;
    const r = await api<{ replayed: number | null }>(`${groupPath(stream, group)}/parked/replay`, {
      method: 'POST',
      body: stopAt ? { stopAt } : {},
    });
    await Promise.all([get().refresh(), get().loadParked(NEWEST)]);
    return r.replayed;
  },
  async update(settings) {
    const { stream, group } = get();
    if (!stream || !group) return;
    await api(groupPath(stream, group), { method: 'PUT', body: settings });
    await get().refresh();
  },
  async remove() {
    const { stream, group } = get();
    if (!stream || !group) return;
    await api(groupPath(stream, group), { method: 'DELETE' });
    set({ key: null, detail: null });
  },
}));

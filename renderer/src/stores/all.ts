import { create } from 'zustand';
import { api, qs } from '../api/client.ts';
import { openLive, type LiveConnection, type LiveStatus } from '../api/live.ts';
import type { AllPage, UiEvent } from '../api/types.ts';
import { expandEvery, liveStatusHandler, pauseControls, toggleExpanded } from './live-tail.ts';

export interface AllCursorState {
  direction: 'forward' | 'backward';
  /** Absent: the end of the log (backward) or its start (forward). */
  commit?: number;
  prepare?: number;
  exclusive?: boolean;
}

export interface AllFilters {
  hideSystem: boolean;
  streamPrefix: string;
  eventType: string;
}

export const ALL_NEWEST: AllCursorState = { direction: 'backward' };
export const ALL_OLDEST: AllCursorState = { direction: 'forward' };
export const DEFAULT_FILTERS: AllFilters = { hideSystem: true, streamPrefix: '', eventType: '' };

export function isAllNewest(c: AllCursorState): boolean {
  return c.direction === 'backward' && c.commit === undefined;
}

export function sameAllCursor(a: AllCursorState, b: AllCursorState): boolean {
  return (
    a.direction === b.direction &&
    a.commit === b.commit &&
    a.prepare === b.prepare &&
    Boolean(a.exclusive) === Boolean(b.exclusive)
  );
}

export function allCursorFromQuery(q: Record<string, string>): AllCursorState {
  const direction = q.dir === 'forward' ? 'forward' : 'backward';
  const commit = Number(q.c);
  const prepare = Number(q.p);
  if (
    q.c === undefined ||
    !Number.isSafeInteger(commit) ||
    commit < 0 ||
    !Number.isSafeInteger(prepare) ||
    prepare < 0
  ) {
    return direction === 'forward' ? ALL_OLDEST : ALL_NEWEST;
  }
  return { direction, commit, prepare, exclusive: q.x === '1' };
}

export function allCursorQuery(c: AllCursorState): Record<string, string | undefined> {
  if (isAllNewest(c)) return {};
  if (c.commit === undefined) return { dir: c.direction };
  return { dir: c.direction, c: String(c.commit), p: String(c.prepare ?? c.commit), x: c.exclusive ? '1' : undefined };
}

export function filtersFromQuery(q: Record<string, string>): AllFilters {
  return { hideSystem: q.system !== '1', streamPrefix: q.stream ?? '', eventType: q.type ?? '' };
}

export function filtersQuery(f: AllFilters): Record<string, string | undefined> {
  return {
    system: f.hideSystem ? undefined : '1',
    stream: f.streamPrefix || undefined,
    type: f.eventType || undefined,
  };
}

export function sameFilters(a: AllFilters, b: AllFilters): boolean {
  return a.hideSystem === b.hideSystem && a.streamPrefix === b.streamPrefix && a.eventType === b.eventType;
}

/** Where the four paging buttons of `$all` lead; null disables a button. */
export function allMoves(page: AllPage | null): Record<'first' | 'previous' | 'next' | 'last', AllCursorState | null> {
  if (!page) return { first: null, previous: null, next: null, last: null };
  return {
    first: page.hasOlder ? ALL_OLDEST : null,
    previous:
      page.hasOlder && page.older
        ? { direction: 'backward', commit: page.older.commitPosition, prepare: page.older.preparePosition }
        : null,
    next:
      page.hasNewer && page.newer
        ? {
            direction: 'forward',
            commit: page.newer.commitPosition,
            prepare: page.newer.preparePosition,
            exclusive: page.newer.exclusive,
          }
        : null,
    last: page.hasNewer ? ALL_NEWEST : null,
  };
}

const eventKey = (e: UiEvent) => `${e.position?.commitPosition}/${e.position?.preparePosition}`;

interface AllState {
  cursor: AllCursorState;
  filters: AllFilters;
  count: number;
  page: AllPage | null;
  loading: boolean;
  error: string | null;
  expanded: Record<string, boolean>;
  live: LiveStatus | 'off';
  paused: boolean;
  arrived: number;
  skipped: number;
  open(cursor: AllCursorState, filters: AllFilters): Promise<void>;
  reload(): Promise<void>;
  setCount(count: number): Promise<void>;
  toggleRow(key: string): void;
  expandAll(): void;
  collapseAll(): void;
  pause(): void;
  resume(): Promise<void>;
  close(): void;
}

export const rowKey = eventKey;

export const useAll = create<AllState>((set, get) => {
  let live: LiveConnection | null = null;
  let liveFilters: AllFilters | null = null;
  let loadSeq = 0;
  const atNewest = () => isAllNewest(get().cursor) || (get().page !== null && !get().page!.hasNewer);
  const onLiveStatus = liveStatusHandler(
    () => void get().reload(),
    (status) => set({ live: status }),
  );

  const onLiveEvents = (events: UiEvent[]) => {
    const s = get();
    if (!s.page || !events.length) return;
    if (s.paused || !atNewest()) {
      set({ arrived: s.arrived + events.length, page: { ...s.page, hasNewer: true } });
      return;
    }
    const seen = new Set(s.page.events.map(eventKey));
    let rows = [...s.page.events, ...events.filter((e) => !seen.has(eventKey(e)))];
    const overflow = rows.length - s.count;
    if (overflow > 0) rows = rows.slice(overflow);
    const first = rows[0]?.position;
    const last = rows[rows.length - 1]?.position;
    set({
      cursor: ALL_NEWEST,
      page: {
        ...s.page,
        events: rows,
        hasNewer: false,
        hasOlder: s.page.hasOlder || overflow > 0,
        older: first ?? s.page.older,
        newer: last ? { ...last, exclusive: true } : s.page.newer,
      },
    });
  };

  const connectLive = (filters: AllFilters) => {
    if (live && liveFilters && sameFilters(liveFilters, filters)) return;
    live?.close();
    liveFilters = filters;
    const mine = filters;
    live = openLive(
      {
        hideSystem: filters.hideSystem,
        streamPrefix: filters.streamPrefix || undefined,
        eventType: filters.eventType || undefined,
      },
      {
        onStatus: (status) => {
          if (liveFilters === mine) onLiveStatus(status);
        },
        onMessage: (m) => {
          if (liveFilters !== mine) return;
          if (m.type === 'events') onLiveEvents(m.events);
          else if (m.type === 'skipped') set({ skipped: get().skipped + m.count });
        },
      },
    );
  };

  const load = async () => {
    const { cursor, filters, count } = get();
    const seq = ++loadSeq;
    set({ loading: true, error: null });
    try {
      const page = await api<AllPage>(
        `/eventlog/all${qs({
          direction: cursor.direction,
          commit: cursor.commit,
          prepare: cursor.prepare,
          exclusive: cursor.exclusive ? true : undefined,
          count,
          hideSystem: filters.hideSystem,
          streamPrefix: filters.streamPrefix,
          eventType: filters.eventType,
        })}`,
      );
      if (seq === loadSeq) set({ page, loading: false, arrived: isAllNewest(cursor) ? 0 : get().arrived });
    } catch (err) {
      if (seq === loadSeq) set({ error: (err as Error).message, loading: false, page: null });
    }
  };

  return {
    cursor: ALL_NEWEST,
    filters: DEFAULT_FILTERS,
    count: 20,
    page: null,
    loading: false,
    error: null,
    expanded: {},
    live: 'off',
    paused: false,
    arrived: 0,
    skipped: 0,
    async open(cursor, filters) {
      const s = get();
      if (sameAllCursor(s.cursor, cursor) && sameFilters(s.filters, filters) && (s.page || s.loading) && live) return;
      const filtersChanged = !sameFilters(s.filters, filters);
      set({ cursor, filters, ...(filtersChanged ? { expanded: {}, arrived: 0, skipped: 0 } : {}) });
      connectLive(filters);
      await load();
    },
    async reload() {
      set({ skipped: 0 });
      await load();
    },
    async setCount(count) {
      set({ count });
      await load();
    },
    toggleRow(key) {
      set({ expanded: toggleExpanded(get().expanded, key) });
    },
    expandAll() {
      set({ expanded: expandEvery(get().page?.events, eventKey) });
    },
    collapseAll() {
      set({ expanded: {} });
    },
    ...pauseControls(atNewest, set, async () => {
      set({ cursor: ALL_NEWEST });
      await load();
    }),
    close() {
      live?.close();
      live = null;
      liveFilters = null;
      loadSeq++;
      set({ live: 'off', page: null });
    },
  };
});

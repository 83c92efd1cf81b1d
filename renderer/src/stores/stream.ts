import { create } from 'zustand';
import { api, qs } from '../api/client.ts';
import { openLive, type LiveConnection, type LiveStatus } from '../api/live.ts';
import type { MetadataResponse, StreamPage, UiEvent, UiStreamSummary } from '../api/types.ts';
import { expandEvery, liveStatusHandler, pauseControls, toggleExpanded } from './live-tail.ts';

export interface StreamCursor {
  from: number;
  direction: 'forward' | 'backward';
}

/** The newest page: read backward from the end. Streams open here. */
export const NEWEST: StreamCursor = { from: -1, direction: 'backward' };
export const PAGE_SIZES = [20, 50, 100, 500] as const;

export type PageMove = 'first' | 'previous' | 'next' | 'last';

/**
 * Where each paging button leads from a page, or null when it has nowhere to go (the button is then
 * disabled, never hidden). First is event 0 (or the first readable one), last is the newest page.
 */
export function pageMoves(page: StreamPage | null, cursor: StreamCursor): Record<PageMove, StreamCursor | null> {
  if (!page) return { first: null, previous: null, next: null, last: null };
  const firstOnPage = page.events[0]?.eventNumber;
  const lastOnPage = page.events[page.events.length - 1]?.eventNumber;
  const previousFrom = firstOnPage !== undefined ? firstOnPage - 1 : cursor.from - 1;
  const nextFrom = lastOnPage !== undefined ? lastOnPage + 1 : cursor.from + 1;
  return {
    first: page.hasOlder ? { from: 0, direction: 'forward' } : null,
    previous: page.hasOlder && previousFrom >= 0 ? { from: previousFrom, direction: 'backward' } : null,
    next: page.hasNewer ? { from: nextFrom, direction: 'forward' } : null,
    last: page.hasNewer ? NEWEST : null,
  };
}

export function sameCursor(a: StreamCursor, b: StreamCursor): boolean {
  return a.from === b.from && a.direction === b.direction;
}

/** The cursor a stream URL's query names (`?from=N&dir=forward`), the newest page when it names none. */
export function cursorFromQuery(query: Record<string, string>): StreamCursor {
  const from = Number(query.from);
  if (!Number.isSafeInteger(from) || from < -1) return NEWEST;
  const direction = query.dir === 'forward' ? 'forward' : 'backward';
  if (direction === 'forward' && from < 0) return NEWEST;
  return { from, direction };
}

export function cursorQuery(c: StreamCursor): Record<string, string | undefined> {
  return sameCursor(c, NEWEST) ? {} : { from: String(c.from), dir: c.direction };
}

interface StreamState {
  streamId: string | null;
  cursor: StreamCursor;
  count: number;
  page: StreamPage | null;
  loading: boolean;
  error: string | null;
  summary: UiStreamSummary | null;
  metadata: MetadataResponse | null;
  metadataError: string | null;
  /** Event numbers whose rows show data and metadata. */
  expanded: Record<number, boolean>;
  live: LiveStatus | 'off';
  paused: boolean;
  /** Events that arrived while paused or while an older page was shown. */
  arrived: number;
  /** Events the server dropped from the live tail because this page could not keep up. */
  skipped: number;
  deleted: { hard: boolean } | null;

  open(streamId: string, cursor: StreamCursor): Promise<void>;
  reload(): Promise<void>;
  setCount(count: number): Promise<void>;
  toggleRow(eventNumber: number): void;
  expandAll(): void;
  collapseAll(): void;
  pause(): void;
  resume(): Promise<void>;
  loadMetadata(): Promise<void>;
  saveMetadata(doc: Record<string, unknown>): Promise<void>;
  close(): void;
}

const isNewestView = (s: { cursor: StreamCursor; page: StreamPage | null }) =>
  sameCursor(s.cursor, NEWEST) || (s.page !== null && !s.page.hasNewer);

export const useStream = create<StreamState>((set, get) => {
  let live: LiveConnection | null = null;
  let liveFor: string | null = null;
  let loadSeq = 0;
  const onLiveStatus = liveStatusHandler(
    () => void get().reload(),
    (status) => set({ live: status }),
  );

  const onLiveEvents = (events: UiEvent[]) => {
    const s = get();
    if (!s.page || events.length === 0) return;
    const newest = events[events.length - 1].eventNumber;
    const lastEventNumber = Math.max(s.page.lastEventNumber, newest);
    if (s.paused || !isNewestView(s)) {
      // Not shown now: count them, and let Next/Last lead to them; the stream's facts stay true meanwhile.
      const unseen = s.summary ? events.filter((e) => e.eventNumber > s.summary!.lastEventNumber).length : 0;
      set({
        arrived: s.arrived + events.length,
        page: { ...s.page, exists: true, lastEventNumber, hasNewer: true },
        summary: s.summary ? { ...s.summary, lastEventNumber, eventCount: s.summary.eventCount + unseen } : s.summary,
      });
      return;
    }
    const lastOnPage = s.page.events[s.page.events.length - 1]?.eventNumber ?? -1;
    const fresh = events.filter((e) => e.eventNumber > lastOnPage);
    let rows = [...s.page.events, ...fresh];
    const overflow = rows.length - s.count;
    if (overflow > 0) rows = rows.slice(overflow);
    set({
      cursor: NEWEST,
      page: {
        ...s.page,
        exists: true,
        events: rows,
        lastEventNumber,
        hasNewer: false,
        hasOlder: s.page.hasOlder || overflow > 0,
      },
      summary: s.summary
        ? {
            ...s.summary,
            lastEventNumber,
            eventCount: s.summary.eventCount + fresh.length,
            updatedAt: fresh[fresh.length - 1]?.created ?? s.summary.updatedAt,
          }
        : s.summary,
    });
  };

  const connectLive = (streamId: string) => {
    if (live && liveFor === streamId) return;
    live?.close();
    liveFor = streamId;
    live = openLive(
      { stream: streamId },
      {
        onStatus: (status) => {
          if (liveFor === streamId) onLiveStatus(status);
        },
        onMessage: (m) => {
          if (liveFor !== streamId) return;
          if (m.type === 'events') onLiveEvents(m.events);
          else if (m.type === 'skipped') set({ skipped: get().skipped + m.count });
          else if (m.type === 'deleted') {
            set({ deleted: { hard: m.hard } });
            void get().reload();
          }
        },
      },
    );
  };

  const load = async (streamId: string, cursor: StreamCursor, count: number) => {
    const seq = ++loadSeq;
    set({ loading: true, error: null });
    try {
      const [page, info] = await Promise.all([
        api<StreamPage>(
          `/eventlog/streams/${encodeURIComponent(streamId)}/events${qs({ from: cursor.from, direction: cursor.direction, count })}`,
        ),
        api<{ stream: UiStreamSummary; exists: boolean }>(`/eventlog/streams/${encodeURIComponent(streamId)}`),
      ]);
      if (seq !== loadSeq) return;
      set({
        page,
        summary: info.exists ? info.stream : null,
        loading: false,
        arrived: isNewestView({ cursor, page }) ? 0 : get().arrived,
      });
    } catch (err) {
      if (seq !== loadSeq) return;
      set({ error: (err as Error).message, loading: false, page: null });
    }
  };

  return {
    streamId: null,
    cursor: NEWEST,
    count: 20,
    page: null,
    loading: false,
    error: null,
    summary: null,
    metadata: null,
    metadataError: null,
    expanded: {},
    live: 'off',
    paused: false,
    arrived: 0,
    skipped: 0,
    deleted: null,

    async open(streamId, cursor) {
      const s = get();
      const sameStream = s.streamId === streamId;
      if (sameStream && sameCursor(s.cursor, cursor) && (s.page || s.loading)) return;
      set({
        streamId,
        cursor,
        ...(sameStream
          ? {}
          : {
              page: null,
              summary: null,
              metadata: null,
              metadataError: null,
              expanded: {},
              paused: false,
              arrived: 0,
              skipped: 0,
              deleted: null,
            }),
      });
      connectLive(streamId);
      await Promise.all([load(streamId, cursor, get().count), sameStream ? Promise.resolve() : get().loadMetadata()]);
    },
    async reload() {
      const { streamId, cursor, count } = get();
      if (!streamId) return;
      set({ skipped: 0, deleted: null });
      await load(streamId, cursor, count);
    },
    async setCount(count) {
      set({ count });
      await get().reload();
    },
    toggleRow(n) {
      set({ expanded: toggleExpanded(get().expanded, n) });
    },
    expandAll() {
      set({ expanded: expandEvery(get().page?.events, (e) => e.eventNumber) });
    },
    collapseAll() {
      set({ expanded: {} });
    },
    ...pauseControls(
      () => isNewestView(get()),
      set,
      async () => {
        set({ cursor: NEWEST });
        await get().reload();
      },
    ),
    async loadMetadata() {
      const { streamId } = get();
      if (!streamId) return;
      try {
        const metadata = await api<MetadataResponse>(`/eventlog/streams/${encodeURIComponent(streamId)}/metadata`);
        if (get().streamId === streamId) set({ metadata, metadataError: null });
      } catch (err) {
        if (get().streamId === streamId) set({ metadataError: (err as Error).message });
      }
    },
    async saveMetadata(doc) {
      const { streamId, metadata } = get();
      if (!streamId) return;
      // Throws with the server's message (shown in the editor); the page reloads so truncation shows at once.
      const saved = await api<MetadataResponse>(`/eventlog/streams/${encodeURIComponent(streamId)}/metadata`, {
        method: 'PUT',
        body: { metadata: doc, expectedVersion: metadata?.version ?? undefined },
      });
      set({ metadata: { ...saved, invalid: undefined } });
      await get().reload();
    },
    close() {
      live?.close();
      live = null;
      liveFor = null;
      loadSeq++;
      set({ streamId: null, page: null, live: 'off', summary: null, metadata: null });
    },
  };
});

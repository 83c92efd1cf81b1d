import { create } from 'zustand';
import { api, qs } from '../api/client.ts';
import type { UiStreamSummary } from '../api/types.ts';

export type SearchMode = 'exact' | 'prefix' | 'wildcard';

interface StreamsState {
  query: string;
  mode: SearchMode;
  includeSystem: boolean;
  /** Search results; null when no search has run (the page shows recent streams instead). */
  results: UiStreamSummary[] | null;
  searching: boolean;
  searchError: string | null;
  recent: { created: UiStreamSummary[]; changed: UiStreamSummary[] } | null;
  categories: { category: string; streams: number }[] | null;
  loading: boolean;
  error: string | null;
  setQuery(query: string, mode?: SearchMode): void;
  setIncludeSystem(include: boolean): void;
  search(): Promise<void>;
  clearSearch(): void;
  loadOverview(): Promise<void>;
}

/** A search text with `*` or `?` is a wildcard search whatever mode was picked; that is what people mean. */
export function effectiveMode(query: string, mode: SearchMode): SearchMode {
  return mode !== 'exact' && /[*?]/.test(query) ? 'wildcard' : mode;
}

export const useStreams = create<StreamsState>((set, get) => {
  let searchSeq = 0;
  return {
    query: '',
    mode: 'prefix',
    includeSystem: false,
    results: null,
    searching: false,
    searchError: null,
    recent: null,
    categories: null,
    loading: false,
    error: null,
    setQuery(query, mode) {
      set({ query, mode: mode ?? get().mode });
    },
    setIncludeSystem(includeSystem) {
      set({ includeSystem });
      void get().loadOverview();
      if (get().results) void get().search();
    },
    async search() {
      const { query, mode, includeSystem } = get();
      if (!query.trim()) {
        set({ results: null, searchError: null });
        return;
      }
      const seq = ++searchSeq;
      set({ searching: true, searchError: null });
      try {
        const { streams } = await api<{ streams: UiStreamSummary[] }>(
          `/eventlog/streams${qs({ q: query.trim(), mode: effectiveMode(query.trim(), mode), order: 'name', limit: 200, system: includeSystem })}`,
        );
        if (seq === searchSeq) set({ results: streams, searching: false });
      } catch (err) {
        if (seq === searchSeq) set({ searchError: (err as Error).message, searching: false, results: [] });
      }
    },
    clearSearch() {
      searchSeq++;
      set({ query: '', results: null, searchError: null, searching: false });
    },
    async loadOverview() {
      const { includeSystem } = get();
      set({ loading: get().recent === null, error: null });
      try {
        const [recent, { categories }] = await Promise.all([
          api<{ created: UiStreamSummary[]; changed: UiStreamSummary[] }>(
            `/eventlog/recent-streams${qs({ limit: 15, system: includeSystem })}`,
          ),
          api<{ categories: { category: string; streams: number }[] }>('/eventlog/categories?limit=100'),
        ]);
        set({ recent, categories, loading: false });
      } catch (err) {
        set({ error: (err as Error).message, loading: false });
      }
    },
  };
});

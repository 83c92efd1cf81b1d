import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { ServerInfo } from '../../../server/http/ui-api.ts';

/** The server view's shape, taken from the server's own route module so both sides agree. */
export type { ServerInfo };

export interface LogEntry {
  time: number;
  level: string;
  msg: string;
  line: string;
}

interface ServerState {
  info: ServerInfo | null;
  loading: boolean;
  error: string | null;
  logs: LogEntry[];
  logLevel: string;
  logQuery: string;
  load(): Promise<void>;
  loadLogs(): Promise<void>;
  setLogFilter(level: string, query: string): void;
}

export const useServer = create<ServerState>((set, get) => ({
  info: null,
  loading: false,
  error: null,
  logs: [],
  logLevel: 'info',
  logQuery: '',
  async load() {
    set({ loading: true, error: null });
    try {
      set({ info: await api<ServerInfo>('/server'), loading: false });
    } catch (err) {
      set({ error: (err as Error).message, loading: false });
    }
  },
  async loadLogs() {
    const { logLevel, logQuery } = get();
    const params = new URLSearchParams({ level: logLevel, limit: '200' });
    if (logQuery) params.set('q', logQuery);
    try {
      const { entries } = await api<{ entries: LogEntry[] }>(`/logs?${params}`);
      set({ logs: entries });
    } catch (err) {
      set({ error: (err as Error).message });
    }
  },
  setLogFilter(logLevel, logQuery) {
    set({ logLevel, logQuery });
    void get().loadLogs();
  },
}));

import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../../api/client.ts';

/** How often the Projections pages refresh while open. */
export const PROJECTIONS_POLL_MS = 2000;

/**
 * Loads `path` now and every PROJECTIONS_POLL_MS while mounted; `reload` asks again at once (after a command).
 * Keeps the last answer on a failed refresh and shows the error beside it.
 */
export function usePolled<T>(path: string | null): {
  data: T | null;
  error: string | null;
  reload: () => Promise<void>;
  loadedAt: number;
} {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadedAt, setLoadedAt] = useState(0);
  const current = useRef(path);
  current.current = path;
  const reload = useCallback(async () => {
    if (path === null) return;
    try {
      const next = await api<T>(path);
      if (current.current !== path) return;
      setData(next);
      setError(null);
      setLoadedAt(Date.now());
    } catch (err) {
      if (current.current === path) setError((err as Error).message);
    }
  }, [path]);
  useEffect(() => {
    setData(null);
    void reload();
    const timer = setInterval(() => void reload(), PROJECTIONS_POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  return { data, error, reload, loadedAt };
}

/** A projection's path in the UI API. */
export const projectionApi = (name: string, rest = '') => `/eventlog/projections/${encodeURIComponent(name)}${rest}`;

/** Status words as a badge tone: green running, red faulted, neutral otherwise. */
export function statusTone(status: string): 'good' | 'bad' | 'warn' | 'neutral' {
  if (status.startsWith('Running')) return 'good';
  if (status.startsWith('Faulted')) return 'bad';
  if (status.startsWith('Aborted')) return 'warn';
  return 'neutral';
}

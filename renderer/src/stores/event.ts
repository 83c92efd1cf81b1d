import { create } from 'zustand';
import { api, ApiError } from '../api/client.ts';
import type { EventDetailResponse } from '../api/types.ts';

interface EventState {
  key: string | null;
  detail: EventDetailResponse | null;
  loading: boolean;
  error: string | null;
  /** The server answered that there is no such event (404) or stream (410 deleted): trying again cannot help. */
  missing: boolean;
  open(streamId: string, eventNumber: number): Promise<void>;
}

/** One event with everything about it, and the numbers of its neighbours in the stream. */
export const useEvent = create<EventState>((set, get) => ({
  key: null,
  detail: null,
  loading: false,
  error: null,
  missing: false,
  async open(streamId, eventNumber) {
    const key = `${eventNumber}@${streamId}`;
    if (get().key === key && (get().detail || get().loading)) return;
    set({ key, loading: true, error: null, missing: false, detail: null });
    try {
      const detail = await api<EventDetailResponse>(
        `/eventlog/streams/${encodeURIComponent(streamId)}/events/${eventNumber}`,
      );
      if (get().key === key) set({ detail, loading: false });
    } catch (err) {
      const missing = err instanceof ApiError && (err.status === 404 || err.status === 410);
      if (get().key === key) set({ error: (err as Error).message, missing, loading: false });
    }
  },
}));

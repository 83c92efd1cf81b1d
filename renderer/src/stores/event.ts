import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { EventDetailResponse } from '../api/types.ts';

interface EventState {
  key: string | null;
  detail: EventDetailResponse | null;
  loading: boolean;
  error: string | null;
  open(streamId: string, eventNumber: number): Promise<void>;
}

/** One event with everything about it, and the numbers of its neighbours in the stream. */
export const useEvent = create<EventState>((set, get) => ({
  key: null,
  detail: null,
  loading: false,
  error: null,
  async open(streamId, eventNumber) {
    const key = `${eventNumber}@${streamId}`;
    if (get().key === key && (get().detail || get().loading)) return;
    set({ key, loading: true, error: null, detail: null });
    try {
      const detail = await api<EventDetailResponse>(
        `/eventlog/streams/${encodeURIComponent(streamId)}/events/${eventNumber}`,
      );
      if (get().key === key) set({ detail, loading: false });
    } catch (err) {
      if (get().key === key) set({ error: (err as Error).message, loading: false });
    }
  },
}));

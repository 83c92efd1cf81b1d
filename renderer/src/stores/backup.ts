import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { BackupJob } from '../../../server/http/ui-api.ts';

export type { BackupJob };

interface BackupState {
  job: BackupJob | null;
  error: string | null;
  /** Starts a backup into `directory` (a folder on the machine Homeport runs on) and follows it to the end. */
  start(directory: string): Promise<void>;
  refresh(): Promise<void>;
}

const POLL_MS = 300;

export const useBackup = create<BackupState>((set, get) => ({
  job: null,
  error: null,
  async refresh() {
    try {
      set({ job: await api<BackupJob>('/backup') });
    } catch (err) {
      set({ error: (err as Error).message });
    }
  },
  async start(directory) {
    set({ error: null });
    try {
      set({ job: await api<BackupJob>('/backup', { method: 'POST', body: { directory } }) });
    } catch (err) {
      set({ error: (err as Error).message });
      return;
    }
    while (get().job?.state === 'running') {
      await new Promise((r) => setTimeout(r, POLL_MS));
      await get().refresh();
    }
  },
}));

import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { SelfCheckReport } from '../../../server/social/index.ts';

export type { SelfCheckReport };

interface FederationCheckState {
  report: SelfCheckReport | null;
  running: boolean;
  error: string | null;
  /** Fetches the instance's own documents through its public URL, as another server would. */
  run(): Promise<void>;
}

export const useFederationCheck = create<FederationCheckState>((set) => ({
  report: null,
  running: false,
  error: null,
  async run() {
    set({ running: true, error: null });
    try {
      set({ report: await api<SelfCheckReport>('/federation/self-check', { method: 'POST', body: {} }) });
    } catch (err) {
      set({ error: (err as Error).message });
    } finally {
      set({ running: false });
    }
  },
}));

import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { AccessTokenView } from '../api/types.ts';

interface TokensState {
  tokens: AccessTokenView[] | null;
  error: string | null;
  load(): Promise<void>;
  /** Resolves with the secret, which the server shows this once. */
  create(request: { user: string; name?: string; expiresInDays?: number }): Promise<string>;
  revoke(id: string): Promise<void>;
}

/** Bearer tokens of event-log users (gRPC clients' `{ bearerToken }`). Mutations throw with the server's message. */
export const useTokens = create<TokensState>((set, get) => ({
  tokens: null,
  error: null,
  async load() {
    try {
      const { tokens } = await api<{ tokens: AccessTokenView[] }>('/eventlog/tokens');
      set({ tokens, error: null });
    } catch (err) {
      set({ error: (err as Error).message });
    }
  },
  async create(request) {
    const { token } = await api<{ token: string }>('/eventlog/tokens', { method: 'POST', body: request });
    await get().load();
    return token;
  },
  async revoke(id) {
    await api(`/eventlog/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
    await get().load();
  },
}));

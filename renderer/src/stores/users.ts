import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { EventLogUserView } from '../api/types.ts';

interface UsersState {
  users: EventLogUserView[] | null;
  loading: boolean;
  error: string | null;
  load(): Promise<void>;
  add(user: { name: string; password: string; fullName?: string; groups: string[] }): Promise<void>;
  changePassword(name: string, password: string): Promise<void>;
  remove(name: string): Promise<void>;
}

/** Event-log accounts (what TCP clients sign in with). Mutations throw with the server's message for the form to show. */
export const useUsers = create<UsersState>((set, get) => ({
  users: null,
  loading: false,
  error: null,
  async load() {
    set({ loading: get().users === null, error: null });
    try {
      const { users } = await api<{ users: EventLogUserView[] }>('/eventlog/users');
      set({ users, loading: false });
    } catch (err) {
      set({ error: (err as Error).message, loading: false });
    }
  },
  async add(user) {
    await api('/eventlog/users', { method: 'POST', body: user });
    await get().load();
  },
  async changePassword(name, password) {
    await api(`/eventlog/users/${encodeURIComponent(name)}/password`, { method: 'PUT', body: { password } });
    // A default password that was changed no longer warns.
    await get().load();
  },
  async remove(name) {
    await api(`/eventlog/users/${encodeURIComponent(name)}`, { method: 'DELETE' });
    await get().load();
  },
}));

import { create } from 'zustand';
import { api, setApiToken, setUnauthorizedHandler } from '../api/client.ts';
import { desktopBridge } from '../desktop-bridge.ts';

const STORAGE_KEY = 'homeport.uiToken';

export interface SessionUser {
  name: string;
  via: string;
}

interface SessionState {
  status: 'checking' | 'signed-out' | 'signed-in';
  user: SessionUser | null;
  error: string | null;
  /** Restores a session: Electron's minted token first, then the one this browser tab stored. */
  restore(): Promise<void>;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

export const useSession = create<SessionState>((set) => {
  const signedOut = (error: string | null = null) => {
    setApiToken(null);
    sessionStorage.removeItem(STORAGE_KEY);
    set({ status: 'signed-out', user: null, error });
  };
  setUnauthorizedHandler(() => signedOut('Your session ended. Sign in again.'));

  const adopt = async (token: string) => {
    setApiToken(token);
    const { user } = await api<{ user: SessionUser }>('/session');
    sessionStorage.setItem(STORAGE_KEY, token);
    set({ status: 'signed-in', user, error: null });
  };

  return {
    status: 'checking',
    user: null,
    error: null,
    async restore() {
      const candidates = [await desktopBridge()?.getUiToken().catch(() => undefined), sessionStorage.getItem(STORAGE_KEY)];
      for (const token of candidates) {
        if (!token) continue;
        try {
          await adopt(token);
          return;
        } catch {
          /* try the next one */
        }
      }
      signedOut();
    },
    async signIn(username, password) {
      set({ error: null });
      try {
        const { token } = await api<{ token: string }>('/session', { method: 'POST', body: { username, password } });
        await adopt(token);
      } catch (err) {
        signedOut((err as Error).message);
      }
    },
    async signOut() {
      await api('/session', { method: 'DELETE' }).catch(() => undefined);
      signedOut();
    },
  };
});

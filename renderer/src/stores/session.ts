import { create } from 'zustand';
import { api, setApiToken, setUnauthorizedHandler } from '../api/client.ts';
import { desktopBridge } from '../desktop-bridge.ts';

const STORAGE_KEY = 'homeport.uiToken';

export interface SessionUser {
  name: string;
  via: string;
  /** Signed in with the public default password: the UI shows only the change-password screen. */
  mustChangePassword?: boolean;
}

interface SessionState {
  status: 'checking' | 'signed-out' | 'must-change-password' | 'signed-in';
  user: SessionUser | null;
  error: string | null;
  /** Restores a session: Electron's minted token first, then the one this browser tab stored. */
  restore(): Promise<void>;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  /** Replaces the default password, then signs in again with the new one (the change ends the old session). */
  changeDefaultPassword(currentPassword: string, newPassword: string): Promise<void>;
}

export const useSession = create<SessionState>((set) => {
  const signedOut = (error: string | null = null) => {
    setApiToken(null);
    sessionStorage.removeItem(STORAGE_KEY);
    set({ status: 'signed-out', user: null, error });
  };
  setUnauthorizedHandler(() => signedOut('Your session ended. Sign in again.'));

  /** Takes a session: a token (the desktop app's, or this tab's), or null for the browser's session cookie. */
  const adopt = async (token: string | null) => {
    setApiToken(token);
    const { user } = await api<{ user: SessionUser }>('/session');
    if (token) sessionStorage.setItem(STORAGE_KEY, token);
    set({ status: user.mustChangePassword ? 'must-change-password' : 'signed-in', user, error: null });
  };

  return {
    status: 'checking',
    user: null,
    error: null,
    async restore() {
      const candidates = [
        await desktopBridge()
          ?.getUiToken()
          .catch(() => undefined),
        sessionStorage.getItem(STORAGE_KEY),
      ];
      for (const token of candidates) {
        if (!token) continue;
        try {
          await adopt(token);
          return;
        } catch {
          /* try the next one */
        }
      }
      // A new tab or a restarted browser: the HttpOnly session cookie of an earlier sign-in, if still valid.
      try {
        await adopt(null);
      } catch {
        signedOut();
      }
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
    async changeDefaultPassword(currentPassword, newPassword) {
      const name = useSession.getState().user?.name;
      set({ error: null });
      try {
        await api('/session/password', { method: 'PUT', body: { currentPassword, newPassword } });
      } catch (err) {
        set({ error: (err as Error).message });
        return;
      }
      const { token } = await api<{ token: string }>('/session', {
        method: 'POST',
        body: { username: name, password: newPassword },
      });
      await adopt(token);
    },
    async signOut() {
      await api('/session', { method: 'DELETE' }).catch(() => undefined);
      signedOut();
    },
  };
});

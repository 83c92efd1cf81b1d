/** What Electron's preload exposes (see electron/preload.ts); absent in a plain browser. */
export interface DesktopBridge {
  getUiToken(): Promise<string>;
  getListeners(): Promise<{ name: string; url: string }[]>;
  copyText(text: string): Promise<void>;
  /** Shows a system notification (the desktop app, for new social notifications while in the background). */
  notify?(title: string, body: string): Promise<void>;
  /**
   * Shows another server's OAuth page in a window of its own and resolves with the address it sends the user
   * back to (starting with `redirectUri`), or null when the window is closed first.
   */
  authorize?(authorizeUrl: string, redirectUri: string): Promise<string | null>;
  /** The social client's token for a server, kept by the main process (encrypted where the system can). */
  loadSocialToken?(server: string): Promise<string | null>;
  saveSocialToken?(server: string, token: string | null): Promise<void>;
}

declare global {
  interface Window {
    homeport?: DesktopBridge;
  }
}

export function desktopBridge(): DesktopBridge | undefined {
  return typeof window === 'undefined' ? undefined : window.homeport;
}

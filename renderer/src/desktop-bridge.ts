/** What Electron's preload exposes (see electron/preload.ts); absent in a plain browser. */
export interface DesktopBridge {
  getUiToken(): Promise<string>;
  getListeners(): Promise<{ name: string; url: string }[]>;
  copyText(text: string): Promise<void>;
  /** Shows a system notification (the desktop app, for new social notifications while in the background). */
  notify?(title: string, body: string): Promise<void>;
}

declare global {
  interface Window {
    homeport?: DesktopBridge;
  }
}

export function desktopBridge(): DesktopBridge | undefined {
  return typeof window === 'undefined' ? undefined : window.homeport;
}

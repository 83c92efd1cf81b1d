/** The part of a BrowserWindow that bringing it back needs (a fake in tests). */
export interface RevealableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

/**
 * A second launch (or the tray's "Open") while Homeport runs: the window comes back whether it was minimized,
 * hidden or closed to the tray (then a new one is opened). Before the servers are up there is nothing to show
 * yet; the start opens the window anyway.
 */
export function revealWindow(window: RevealableWindow | null, open: () => void): 'revealed' | 'opened' {
  if (!window || window.isDestroyed()) {
    open();
    return 'opened';
  }
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
  return 'revealed';
}

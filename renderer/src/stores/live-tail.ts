import type { LiveStatus } from '../api/live.ts';
import type { UiEvent } from '../api/types.ts';

/**
 * The pieces the `$all` store and the stream store share: a page of events that follows a live tail, with
 * rows that expand and a pause button. (A group's parked messages expand the same way.)
 */

/**
 * The live tail's status handler: shows the status, and reloads the page when the tail is back after a
 * drop, since events may have been written while it was away. One per store, across its connections.
 */
export function liveStatusHandler(
  reload: () => void,
  show: (status: LiveStatus) => void,
): (status: LiveStatus) => void {
  let wasReconnecting = false;
  return (status) => {
    if (status === 'reconnecting') wasReconnecting = true;
    if (status === 'live' && wasReconnecting) {
      wasReconnecting = false;
      reload();
    }
    show(status);
  };
}

/** `expanded` with one row flipped: rows whose key is present show their data and metadata. */
export function toggleExpanded<K extends string | number>(expanded: Record<K, boolean>, key: K): Record<K, boolean> {
  const next = { ...expanded };
  if (next[key]) delete next[key];
  else next[key] = true;
  return next;
}

/** Every row of a page expanded. */
export function expandEvery<K extends string | number>(
  events: readonly UiEvent[] | undefined,
  keyOf: (e: UiEvent) => K,
): Record<K, boolean> {
  return Object.fromEntries((events ?? []).map((e) => [keyOf(e), true])) as Record<K, boolean>;
}

/**
 * Pause and resume of a live page. Pausing counts what arrives instead of showing it; resuming a page that
 * was following the newest events goes back to them (`showNewest`), with whatever arrived meanwhile.
 */
export function pauseControls(
  atNewest: () => boolean,
  set: (state: { paused: boolean; arrived: number }) => void,
  showNewest: () => Promise<void>,
): { pause(): void; resume(): Promise<void> } {
  let pausedAtNewest = false;
  return {
    pause() {
      pausedAtNewest = atNewest();
      set({ paused: true, arrived: 0 });
    },
    async resume() {
      set({ paused: false, arrived: 0 });
      if (pausedAtNewest) await showNewest();
    },
  };
}

import { useSyncExternalStore } from 'react';

/*
 * Post and notification times as the clients people use show them ("5 min", "3 h", "2 d", then the date),
 * the full local time on hover and in dateTime. One shared clock ticks every 30 s for every time shown.
 */

let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => {
    now = Date.now();
    for (const l of listeners) l();
  }, 30_000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** A short relative time: "now", "5 min", "3 h", "2 d", then the date (with the year when not this one). */
export function relativeTime(iso: string, at: number): string {
  const then = new Date(iso);
  const seconds = Math.max(0, Math.round((at - then.getTime()) / 1000));
  if (seconds < 45) return 'now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h`;
  if (seconds < 7 * 86_400) return `${Math.round(seconds / 86_400)} d`;
  const sameYear = then.getFullYear() === new Date(at).getFullYear();
  return then.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: sameYear ? undefined : 'numeric' });
}

export function RelativeTime({ iso }: { iso: string }) {
  const at = useSyncExternalStore(subscribe, () => now);
  const full = new Date(iso).toLocaleString();
  return (
    <time dateTime={iso} title={full}>
      {relativeTime(iso, Math.max(at, Date.now()))}
    </time>
  );
}

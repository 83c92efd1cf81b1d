/**
 * What the soak's socket workers share: cheap WebSockets (no compression, no UTF-8 check, frames counted rather
 * than parsed), one watchdog for all of them, and the delivery count against what each should have had.
 */
import WebSocket from 'ws';

/**
 * A socket silent this long is pinged (the streaming API pings its sockets every 30 s, the live tail does not);
 * one silent this long, pong included, is dead: generous, as a loaded machine delays both ends.
 */
const PING_AFTER_MS = 30_000;
const SILENT_MS = 75_000;
const WATCH_EVERY_MS = 10_000;

interface Watched {
  ws: WebSocket;
  lastHeard: number;
  onDrop: (why: string) => void;
}
const watched = new Set<Watched>();
let watching = false;

function watch(entry: Watched): void {
  watched.add(entry);
  if (watching) return;
  watching = true;
  setInterval(() => {
    const now = performance.now();
    for (const w of watched)
      if (now - w.lastHeard > SILENT_MS) {
        w.onDrop(`silent for ${SILENT_MS / 1000} s`);
        w.ws.terminate();
      } else if (now - w.lastHeard > PING_AFTER_MS && w.ws.readyState === WebSocket.OPEN) w.ws.ping();
  }, WATCH_EVERY_MS).unref();
}

/**
 * Opens a WebSocket whose every frame goes to `onMessage` as raw bytes; `onDrop` hears of an error, a close or a
 * socket gone silent (each socket once).
 */
export function openSocket(
  url: string,
  protocols: string[] | undefined,
  handlers: { onMessage: (data: Buffer) => void; onDrop: (why: string) => void },
): WebSocket {
  const ws = new WebSocket(url, protocols, { perMessageDeflate: false, skipUTF8Validation: true });
  let dropped = false;
  const entry: Watched = {
    ws,
    lastHeard: performance.now(),
    onDrop(why) {
      if (dropped) return;
      dropped = true;
      watched.delete(entry);
      handlers.onDrop(why);
    },
  };
  ws.on('message', (data: Buffer) => {
    entry.lastHeard = performance.now();
    handlers.onMessage(data);
  });
  const heard = () => {
    entry.lastHeard = performance.now();
  };
  ws.on('ping', heard);
  ws.on('pong', heard);
  ws.on('error', (err) => entry.onDrop(String(err)));
  ws.on('close', (code) => entry.onDrop(`closed (${code})`));
  watch(entry);
  return ws;
}

/** How many times `pattern` occurs in `data`. */
export function countOccurrences(data: Buffer, pattern: Buffer): number {
  let count = 0;
  for (let at = data.indexOf(pattern); at !== -1; at = data.indexOf(pattern, at + pattern.length)) count++;
  return count;
}

/** Sockets or subscribers that got exactly `expected`, and the events missing (and extra) over all of them. */
export function deliveries(received: readonly number[], expected: number) {
  return {
    complete: received.filter((n) => n === expected).length,
    missing: received.reduce((sum, n) => sum + Math.max(0, expected - n), 0),
    extra: received.reduce((sum, n) => sum + Math.max(0, n - expected), 0),
  };
}

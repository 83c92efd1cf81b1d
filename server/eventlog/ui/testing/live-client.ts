/** A WebSocket client of the event-log UI's live tail (`/eventlog/live`) for tests. */
import WebSocket from 'ws';
import type { LiveMessage } from '../live.ts';
import type { UiEvent } from '../ui-payloads.ts';

export interface LiveClient {
  messages: LiveMessage[];
  next(pred: (m: LiveMessage) => boolean): Promise<LiveMessage>;
  /** Resolves with every event received so far once `done` says so. */
  until(done: (events: UiEvent[]) => boolean): Promise<UiEvent[]>;
  close(): void;
}

/** A WebSocket client that keeps every message, resolved once the server confirmed the subscription. */
export function openLive(url: string): Promise<LiveClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const messages: LiveMessage[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (raw) => {
      messages.push(JSON.parse(String(raw)) as LiveMessage);
      for (const w of waiters.splice(0)) w();
      if (messages.length === 1) resolve(client);
    });
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    const waitFor = <T>(check: () => T | undefined): Promise<T> =>
      new Promise((res) => {
        const attempt = () => {
          const v = check();
          if (v !== undefined) res(v);
          else waiters.push(attempt);
        };
        attempt();
      });
    const client: LiveClient = {
      messages,
      next: (pred) => waitFor(() => messages.find(pred)),
      until: (done) =>
        waitFor(() => {
          const events = messages.flatMap((m) => (m.type === 'events' ? m.events : []));
          return done(events) ? events : undefined;
        }),
      close: () => ws.close(),
    };
  });
}

import type { LiveMessage } from '../../../server/eventlog/ui/contract.ts';
import { wsUrl } from './client.ts';

export type { LiveMessage };
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'denied' | 'closed';

export interface LiveHandlers {
  onMessage(message: LiveMessage): void;
  onStatus(status: LiveStatus, detail?: string): void;
}

export interface LiveConnection {
  close(): void;
}

/**
 * A live tail over WebSocket that reconnects by itself (with growing pauses) when the server goes away.
 * After a reconnect the owner of the tail reloads its page, since events may have been missed meanwhile.
 */
export function openLive(
  params: Record<string, string | number | boolean | undefined>,
  handlers: LiveHandlers,
): LiveConnection {
  let socket: WebSocket | null = null;
  let stopped = false;
  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | null = null;

  const connect = () => {
    handlers.onStatus(attempt === 0 ? 'connecting' : 'reconnecting');
    const ws = new WebSocket(wsUrl('/eventlog/live', params));
    socket = ws;
    ws.onmessage = (e) => {
      let message: LiveMessage;
      try {
        message = JSON.parse(String(e.data)) as LiveMessage;
      } catch {
        return;
      }
      if (message.type === 'subscribed') {
        attempt = 0;
        handlers.onStatus('live');
      }
      handlers.onMessage(message);
    };
    ws.onclose = (e) => {
      if (stopped || socket !== ws) return;
      if (e.code === 4403) {
        handlers.onStatus('denied', e.reason);
        return;
      }
      attempt++;
      handlers.onStatus('reconnecting');
      retry = setTimeout(connect, Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)));
    };
  };
  connect();

  return {
    close() {
      stopped = true;
      if (retry) clearTimeout(retry);
      socket?.close();
      socket = null;
      handlers.onStatus('closed');
    },
  };
}

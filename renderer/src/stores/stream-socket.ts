/** A streaming API stream as Mastodon names it: `user`, `public:local`, `hashtag` with its tag, `list` with its id… */
export interface LiveStream {
  stream: string;
  tag?: string;
  list?: string;
}

/** One frame of the streaming API: an event name and its payload (JSON text, or a bare id for `delete`). */
export interface StreamFrame {
  event?: string;
  payload?: string;
}

/** The streaming API address for one stream at `base` (the server, or the streaming address it reports). */
export function streamUrl(base: string, live: LiveStream): string {
  const query = new URLSearchParams({ stream: live.stream });
  if (live.tag) query.set('tag', live.tag);
  if (live.list) query.set('list', live.list);
  return `${base.replace(/^http/, 'ws').replace(/\/$/, '')}/api/v1/streaming?${query.toString()}`;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

/**
 * A streaming API socket kept open: after a drop it opens again, waiting twice as long each time (up to
 * 30 s). The token travels as the subprotocol, as masto.js sends it (browsers cannot set headers on a
 * WebSocket). `onOpen` is told whether this is a reopening (what was missed meanwhile is not replayed).
 * Returns what closes it for good.
 */
export function keepStreamOpen(
  url: string,
  token: string,
  on: { onOpen?: (reopened: boolean) => void; onFrame: (frame: StreamFrame) => void; onClose?: () => void },
): () => void {
  let closed = false;
  let opened = false;
  let socket: WebSocket | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const open = (delay: number) => {
    socket = new WebSocket(url, [token]);
    socket.onopen = () => {
      on.onOpen?.(opened);
      opened = true;
    };
    socket.onmessage = (e) => on.onFrame(JSON.parse(String(e.data)) as StreamFrame);
    socket.onclose = () => {
      on.onClose?.();
      if (!closed) retry = setTimeout(() => open(Math.min(delay * 2, LAST_RETRY_MS)), delay);
    };
  };
  open(FIRST_RETRY_MS);
  return () => {
    closed = true;
    if (retry) clearTimeout(retry);
    socket?.close();
  };
}

import { useCallback, useEffect, useState } from 'react';
import { useSocialClient, type SocialStatus } from './social-client.ts';

/** A streaming API stream as Mastodon names it: `public:local`, `hashtag` with its tag, `list` with its id… */
export interface LiveStream {
  stream: string;
  tag?: string;
  list?: string;
}

/** The streaming API address for one stream, with its parameters (the token travels as the subprotocol). */
export function streamUrl(base: string, live: LiveStream): string {
  const query = new URLSearchParams({ stream: live.stream });
  if (live.tag) query.set('tag', live.tag);
  if (live.list) query.set('list', live.list);
  return `${base.replace(/^http/, 'ws').replace(/\/$/, '')}/api/v1/streaming?${query.toString()}`;
}

/**
 * Posts arriving live on a timeline other than home (local, federated, a hashtag, a list): held back as
 * "incoming" until the reader asks for them, so nothing jumps under their eyes; deletions reported too.
 * Reconnects with a growing pause while the view is shown.
 */
export function useLiveTimeline(live: LiveStream | null): { connected: boolean; incoming: SocialStatus[]; deleted: Set<string>; take: () => SocialStatus[] } {
  const { server, token, streamingUrl } = useSocialClient();
  const [incoming, setIncoming] = useState<SocialStatus[]>([]);
  const [deleted, setDeleted] = useState<Set<string>>(new Set());
  const [connected, setConnected] = useState(false);
  const key = live ? `${live.stream}|${live.tag ?? ''}|${live.list ?? ''}` : null;
  useEffect(() => {
    if (!live || !token) return;
    let closed = false;
    let socket: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    const open = (delay: number) => {
      socket = new WebSocket(streamUrl(streamingUrl ?? server, live), [token]);
      socket.onopen = () => setConnected(true);
      socket.onmessage = (e) => {
        const frame = JSON.parse(String(e.data)) as { event?: string; payload?: string };
        if (frame.event === 'update' && frame.payload) {
          const status = JSON.parse(frame.payload) as SocialStatus;
          setIncoming((list) => (list.some((s) => s.id === status.id) ? list : [status, ...list]));
        } else if (frame.event === 'delete' && frame.payload) {
          const id = frame.payload;
          setIncoming((list) => list.filter((s) => s.id !== id));
          setDeleted((set) => new Set(set).add(id));
        }
      };
      socket.onclose = () => {
        setConnected(false);
        if (!closed) retry = setTimeout(() => open(Math.min(delay * 2, 30_000)), delay);
      };
    };
    open(1000);
    return () => {
      closed = true;
      if (retry) clearTimeout(retry);
      socket?.close();
    };
    // The stream is identified by its key; a new object with the same stream keeps the socket.
  }, [key, server, token, streamingUrl]);
  const take = useCallback(() => {
    const taken = incoming;
    setIncoming([]);
    return taken;
  }, [incoming]);
  return { connected, incoming, deleted, take };
}

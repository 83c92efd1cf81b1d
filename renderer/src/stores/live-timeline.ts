import { useCallback, useEffect, useState } from 'react';
import { useSocialClient, type SocialStatus } from './social-client.ts';
import { keepStreamOpen, streamUrl, type LiveStream } from './stream-socket.ts';

export type { LiveStream };

/**
 * Posts arriving live on a timeline other than home (local, federated, a hashtag, a list): held back as
 * "incoming" until the reader asks for them, so nothing jumps under their eyes; deletions reported too.
 * Reconnects with a growing pause while the view is shown.
 */
export function useLiveTimeline(live: LiveStream | null): {
  connected: boolean;
  incoming: SocialStatus[];
  deleted: Set<string>;
  take: () => SocialStatus[];
} {
  const { server, token, streamingUrl } = useSocialClient();
  const [incoming, setIncoming] = useState<SocialStatus[]>([]);
  const [deleted, setDeleted] = useState<Set<string>>(new Set());
  const [connected, setConnected] = useState(false);
  const key = live ? `${live.stream}|${live.tag ?? ''}|${live.list ?? ''}` : null;
  useEffect(() => {
    if (!live || !token) return;
    return keepStreamOpen(streamUrl(streamingUrl ?? server, live), token, {
      onOpen: () => setConnected(true),
      onClose: () => setConnected(false),
      onFrame: (frame) => {
        if (frame.event === 'update' && frame.payload) {
          const status = JSON.parse(frame.payload) as SocialStatus;
          setIncoming((list) => (list.some((s) => s.id === status.id) ? list : [status, ...list]));
        } else if (frame.event === 'delete' && frame.payload) {
          const id = frame.payload;
          setIncoming((list) => list.filter((s) => s.id !== id));
          setDeleted((set) => new Set(set).add(id));
        }
      },
    });
    // The stream is identified by its key; a new object with the same stream keeps the socket.
  }, [key, server, token, streamingUrl]);
  const take = useCallback(() => {
    const taken = incoming;
    setIncoming([]);
    return taken;
  }, [incoming]);
  return { connected, incoming, deleted, take };
}

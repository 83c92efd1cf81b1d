import { describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import type { SocialContext } from '../context.ts';
import { StreamingHub } from './hub.ts';
import { DEFAULT_STREAMING_LIMITS } from './limits.ts';
import { WebSocketSubscriber } from './websocket.ts';

/** A socket whose peer has stopped reading: its unsent bytes are whatever the test says. */
function stalledSocket(bufferedAmount: number) {
  const handlers = new Map<string, () => void>();
  return {
    OPEN: 1,
    readyState: 1,
    bufferedAmount,
    send: vi.fn(),
    terminate: vi.fn(),
    close: vi.fn(),
    ping: vi.fn(),
    on: vi.fn((event: string, handler: () => void) => handlers.set(event, handler)),
    /** The socket's 'close' event: the subscriber stops its heartbeat (which would otherwise outlive the test). */
    emitClose: () => handlers.get('close')?.(),
  };
}

describe('a slow WebSocket reader', () => {
  it('is dropped once its unsent bytes pass the bound, instead of holding memory', () => {
    const ctx = {
      events: { on: () => () => {} },
      logger: { warn: vi.fn(), error: vi.fn() },
    } as unknown as SocialContext;
    const hub = new StreamingHub(ctx);
    const channel = { name: 'public' as const, param: null, key: 'public' };
    const limits = { ...DEFAULT_STREAMING_LIMITS, maxBufferedBytes: 1000 };
    const keeping = stalledSocket(999);
    const stalled = stalledSocket(1001);
    for (const socket of [keeping, stalled]) {
      const subscriber = new WebSocketSubscriber(socket as unknown as WebSocket, hub, ctx, 'secret', limits, {
        accountId: '1',
        scopes: ['read'],
      });
      subscriber.send(channel, 'update', '{}');
    }
    expect(keeping.send).toHaveBeenCalledWith('{"stream":["public"],"event":"update","payload":"{}"}');
    expect(keeping.terminate).not.toHaveBeenCalled();
    expect(stalled.send).not.toHaveBeenCalled();
    expect(stalled.terminate).toHaveBeenCalled();
    expect(ctx.logger.warn).toHaveBeenCalledTimes(1);
    for (const socket of [keeping, stalled]) socket.emitClose();
    hub.close();
  });
});

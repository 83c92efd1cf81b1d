import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../context.ts';
import { StreamingHub } from './hub.ts';
import { DEFAULT_STREAMING_LIMITS, type StreamingLimits } from './limits.ts';
import { eventStreamRoutes } from './sse.ts';
import { webSocketRoute } from './websocket.ts';

export type { StreamingLimits } from './limits.ts';

/** The streaming API (WebSocket and server-sent events), fed by the social domain events. */
export interface Streaming {
  hub: StreamingHub;
  /** The limits in force; connections opened after a change use the new values (tests shrink them). */
  limits: StreamingLimits;
  routes(app: FastifyInstance): void;
  /** Resolves when every event so far has been routed to the connections. */
  idle(): Promise<void>;
  stats(): { connections: number; subscriptions: number; events: number; frames: number };
  /** Closes every streaming connection and stops listening. */
  close(): void;
}

export function startStreaming(ctx: SocialContext, limits: Partial<StreamingLimits> = {}): Streaming {
  const hub = new StreamingHub(ctx);
  const effective = { ...DEFAULT_STREAMING_LIMITS, ...limits };
  const open = new Set<{ shutDown(): void }>();
  return {
    hub,
    limits: effective,
    routes(app) {
      webSocketRoute(app, ctx, hub, effective, open);
      eventStreamRoutes(app, ctx, hub, effective, open);
    },
    idle: () => hub.idle(),
    stats: () => ({ connections: hub.connections, subscriptions: hub.subscriptions, ...hub.counters }),
    close() {
      hub.close();
      for (const connection of [...open]) connection.shutDown();
    },
  };
}

import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../context.ts';
import { userStateError } from '../domain/index.ts';
import { StreamingHub, type OpenConnection } from './hub.ts';
import { DEFAULT_STREAMING_LIMITS, type StreamingLimits } from './limits.ts';
import { eventStreamRoutes } from './sse.ts';
import { webSocketRoute } from './websocket.ts';

export type { StreamingLimits } from './limits.ts';
export { DELETIONS_PER_TURN } from './hub.ts';

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
  const open = new Set<OpenConnection>();
  // A suspension or a disabled login closes the account's connections at once (its tokens are refused, not revoked).
  const refuseUnavailable = (accountId: string) => {
    const held = [...open].filter((c) => c.accountId === accountId);
    if (held.length === 0) return;
    const user = ctx.store.users.byAccountId(accountId);
    const account = ctx.store.accounts.byId(accountId);
    const refusal = user && account ? userStateError(user, account) : null;
    if (user && account && !refusal) return;
    for (const connection of held) connection.refuse(refusal?.message ?? 'The access token is invalid');
  };
  const offs = [
    ctx.events.on('account.updated', (e) => refuseUnavailable(e.accountId)),
    ctx.events.on('account.deleted', (e) => refuseUnavailable(e.accountId)),
  ];
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
      for (const off of offs) off();
      hub.close();
      for (const connection of [...open]) connection.shutDown();
    },
  };
}

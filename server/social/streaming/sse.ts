import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SocialContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { currentUser, presentedToken, tokenStillValid } from '../http/index.ts';
import { isChannelError, parseChannel, SSE_PATHS, type Channel } from './channels.ts';
import type { OpenConnection, StreamingHub, StreamSink } from './hub.ts';
import { redirectToStreamingHost } from './host.ts';
import { streamAuth, type StreamingLimits } from './limits.ts';

interface SseQuery {
  tag?: string;
  list?: string;
  only_media?: string;
}

/** Mastodon's false values for boolean query parameters. */
const FALSE_VALUES = new Set(['', '0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

/** One server-sent-events response: `event: <name>\ndata: <payload>\n\n`, a `:thump` comment as heartbeat. */
class EventStreamSubscriber implements StreamSink {
  readonly accountId: string;
  readonly scopes: readonly string[];
  private readonly heartbeat: NodeJS.Timeout;

  private readonly reply: FastifyReply;
  private readonly limits: StreamingLimits;

  /** `stillValid`: whether the token still stands for an active user, asked at each heartbeat (as WebSockets do). */
  constructor(
    reply: FastifyReply,
    limits: StreamingLimits,
    principal: { accountId: string; scopes: readonly string[] },
    stillValid: () => boolean,
  ) {
    this.reply = reply;
    this.limits = limits;
    this.accountId = principal.accountId;
    this.scopes = principal.scopes;
    this.heartbeat = setInterval(
      () => (stillValid() ? this.write(':thump\n') : this.shutDown()),
      limits.sseHeartbeatMs,
    );
    this.heartbeat.unref();
  }

  send(_channel: Channel, event: string, payload: string | undefined): void {
    // Mastodon writes `data: undefined` for filters_changed; clients ignore the data of that event.
    this.write(`event: ${event}\ndata: ${payload ?? 'undefined'}\n\n`);
  }

  private write(text: string): void {
    const raw = this.reply.raw;
    if (raw.destroyed || raw.writableEnded) return;
    if (raw.writableLength > this.limits.maxBufferedBytes) {
      raw.destroy();
      return;
    }
    raw.write(text);
  }

  stop(): void {
    clearInterval(this.heartbeat);
  }

  shutDown(): void {
    this.stop();
    this.reply.raw.end();
  }

  /** Event streams have no close reason: the response ends (clients reconnect and get the 403). */
  refuse(_reason: string): void {
    this.shutDown();
  }
}

/** `GET /api/v1/streaming/<path>` for each SSE path, and `/api/v1/streaming/health`. */
export function eventStreamRoutes(
  app: FastifyInstance,
  ctx: SocialContext,
  hub: StreamingHub,
  limits: StreamingLimits,
  open: Set<OpenConnection>,
): void {
  const redirect = redirectToStreamingHost(ctx.urls);
  app.get(
    '/api/v1/streaming/health',
    { config: { auth: { kind: 'public' } }, onRequest: redirect },
    async (_req, reply) => reply.type('text/plain; charset=utf-8').send('OK'),
  );

  for (const [path, streams] of Object.entries(SSE_PATHS)) {
    app.get<{ Querystring: SseQuery }>(
      `/api/v1/streaming/${path}`,
      { config: { auth: streamAuth(streams.stream) }, onRequest: redirect },
      async (req: FastifyRequest<{ Querystring: SseQuery }>, reply) => {
        const { account, token } = currentUser(req);
        const onlyMedia = req.query.only_media !== undefined && !FALSE_VALUES.has(req.query.only_media);
        const stream = onlyMedia && streams.media ? streams.media : streams.stream;
        const channel = parseChannel(
          { stream, tag: req.query.tag, list: req.query.list },
          account.id,
          token.scopes,
          (id) => hub.listOwner(id),
        );
        if (isChannelError(channel)) throw new ApiError(channel.status === 401 ? 401 : 400, channel.error);
        reply.hijack();
        reply.raw.writeHead(200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'private, no-store',
          'Access-Control-Allow-Origin': '*',
          'X-Accel-Buffering': 'no',
        });
        reply.raw.write(':)\n');
        const secret = presentedToken(req);
        const subscriber = new EventStreamSubscriber(
          reply,
          limits,
          { accountId: account.id, scopes: token.scopes },
          () => secret !== null && tokenStillValid(ctx, secret),
        );
        hub.subscribe(subscriber, channel);
        open.add(subscriber);
        req.raw.on('close', () => {
          subscriber.stop();
          hub.remove(subscriber);
          open.delete(subscriber);
        });
      },
    );
  }
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { SocialContext } from '../context.ts';
import { currentUser, tokenBeforeBody, tokenStillValid } from '../http/index.ts';
import { isChannelError, parseChannel, streamField, type Channel, type ChannelRequest } from './channels.ts';
import type { OpenConnection, StreamingHub, StreamSink } from './hub.ts';
import { redirectToStreamingHost } from './host.ts';
import { STREAM_AUTH, type StreamingLimits } from './limits.ts';

const CLOSE_POLICY = 1008;

/**
 * One WebSocket: many channels multiplexed by subscribe/unsubscribe messages, frames
 * `{"stream":[…],"event":…,"payload":"<JSON string>"}`. Past `maxBufferedBytes` unsent, the socket is dropped
 * rather than let a slow reader hold memory; a ping every `heartbeatMs` drops peers that stopped answering
 * and sockets whose token was revoked.
 */
export class WebSocketSubscriber implements StreamSink {
  readonly accountId: string;
  readonly scopes: readonly string[];
  private readonly channels = new Map<string, Channel>();
  private alive = true;
  private readonly heartbeat: NodeJS.Timeout;

  private readonly socket: WebSocket;
  private readonly hub: StreamingHub;
  private readonly ctx: SocialContext;
  private readonly secret: string;
  private readonly limits: StreamingLimits;

  constructor(
    socket: WebSocket,
    hub: StreamingHub,
    ctx: SocialContext,
    secret: string,
    limits: StreamingLimits,
    principal: { accountId: string; scopes: readonly string[] },
  ) {
    this.socket = socket;
    this.hub = hub;
    this.ctx = ctx;
    this.secret = secret;
    this.limits = limits;
    this.accountId = principal.accountId;
    this.scopes = principal.scopes;
    socket.on('pong', () => (this.alive = true));
    socket.on('message', (data, isBinary) => this.receive(isBinary ? null : data.toString()));
    socket.on('close', () => this.closed());
    socket.on('error', () => socket.terminate());
    this.heartbeat = setInterval(() => this.beat(), limits.heartbeatMs);
    this.heartbeat.unref();
  }

  send(channel: Channel, event: string, payload: string | undefined): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.ctx.logger.warn(
        { accountId: this.accountId, buffered: this.socket.bufferedAmount },
        'streaming socket dropped: it reads slower than events arrive',
      );
      this.socket.terminate();
      return;
    }
    this.socket.send(encodeFrame(channel, event, payload));
  }

  subscribe(request: ChannelRequest): void {
    const channel = parseChannel(request, this.accountId, this.scopes, (id) => this.hub.listOwner(id));
    if (isChannelError(channel)) {
      this.socket.send(JSON.stringify(channel));
      return;
    }
    if (!this.channels.has(channel.key) && this.channels.size >= this.limits.maxChannelsPerSocket) {
      this.socket.send(
        JSON.stringify({
          error: `At most ${this.limits.maxChannelsPerSocket} subscriptions per connection`,
          status: 429,
        }),
      );
      return;
    }
    if (this.hub.subscribe(this, channel)) this.channels.set(channel.key, channel);
  }

  private unsubscribe(request: ChannelRequest): void {
    const channel = parseChannel(request, this.accountId, this.scopes, (id) => this.hub.listOwner(id));
    if (isChannelError(channel)) return;
    const held = this.channels.get(channel.key);
    if (!held) return;
    this.hub.unsubscribe(this, held);
    this.channels.delete(channel.key);
  }

  private receive(text: string | null): void {
    let message: unknown;
    try {
      message = text === null ? null : JSON.parse(text);
    } catch {
      message = null;
    }
    if (!message || typeof message !== 'object') {
      this.socket.send(JSON.stringify({ error: 'Messages must be JSON objects with a type', status: 400 }));
      return;
    }
    const m = message as { type?: unknown; stream?: unknown; tag?: unknown; list?: unknown };
    if (typeof m.stream !== 'string') return;
    // Unknown types are ignored, as Mastodon does.
    if (m.type === 'subscribe') this.subscribe({ stream: m.stream, tag: m.tag, list: m.list });
    else if (m.type === 'unsubscribe') this.unsubscribe({ stream: m.stream, tag: m.tag, list: m.list });
  }

  private beat(): void {
    if (!this.alive || !tokenStillValid(this.ctx, this.secret)) {
      if (this.alive) this.socket.close(CLOSE_POLICY, 'The access token is no longer valid');
      else this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private closed(): void {
    clearInterval(this.heartbeat);
    this.hub.remove(this);
  }

  shutDown(): void {
    this.socket.close(1001, 'Server shutting down');
  }

  refuse(reason: string): void {
    this.socket.close(CLOSE_POLICY, reason);
  }
}

/** Many sockets get the same event on the same channel in a row: encode each frame once. */
let lastFrame: { channel: Channel; event: string; payload: string | undefined; text: string } | null = null;
function encodeFrame(channel: Channel, event: string, payload: string | undefined): string {
  if (
    lastFrame &&
    lastFrame.event === event &&
    lastFrame.payload === payload &&
    lastFrame.channel.key === channel.key &&
    lastFrame.channel.param === channel.param
  )
    return lastFrame.text;
  const text = JSON.stringify({ stream: streamField(channel), event, payload });
  lastFrame = { channel, event, payload, text };
  return text;
}

interface StreamQuery {
  stream?: string;
  tag?: string;
  list?: string;
}

/** `GET /api/v1/streaming` (WebSocket upgrade): token checked before the upgrade (401 refuses the handshake). */
export function webSocketRoute(
  app: FastifyInstance,
  ctx: SocialContext,
  hub: StreamingHub,
  limits: StreamingLimits,
  open: Set<OpenConnection>,
): void {
  app.get<{ Querystring: StreamQuery }>(
    '/api/v1/streaming',
    { websocket: true, config: { auth: STREAM_AUTH() }, onRequest: redirectToStreamingHost(ctx.urls) },
    (socket, req: FastifyRequest<{ Querystring: StreamQuery }>) => {
      const { account, token } = currentUser(req);
      const subscriber = new WebSocketSubscriber(socket, hub, ctx, tokenBeforeBody(req) ?? '', limits, {
        accountId: account.id,
        scopes: token.scopes,
      });
      open.add(subscriber);
      socket.on('close', () => open.delete(subscriber));
      // megalodon subscribes in the URL; masto.js connects bare and sends subscribe messages.
      if (req.query.stream)
        subscriber.subscribe({ stream: req.query.stream, tag: req.query.tag, list: req.query.list });
    },
  );
}

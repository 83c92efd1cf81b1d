import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../text/index.ts';
import type { SocialContext } from '../context.ts';
import type { RequestContext } from '@fedify/fedify';
import { localAccount, type FedDeps } from './deps.ts';
import type { InboxDelivery } from './inbox-intake.ts';
import { inboxBodyJson } from './inbox-body.ts';
import type { FederationRuntime } from './runtime.ts';
import { knownProbeNonce, PROBE_PATH, type ProbeEcho } from './self-check.ts';

const AP_TYPES = ['application/activity+json', 'application/ld+json'];

function wantsActivityStreams(req: FastifyRequest): boolean {
  const accept = String(req.headers.accept ?? '');
  return AP_TYPES.some((t) => accept.includes(t));
}

/**
 * The fastify side of Fedify: each ActivityPub route hands Fedify a Web Request carrying the body exactly as
 * it arrived (so Digest and Content-Digest checks hold) and the public URL (so ids and signatures match
 * what peers see). Requests Fedify does not serve (a browser asking for a profile) get HTML instead.
 * Fedify is built at the first request that needs it (`runtime`, see index.ts); pages for browsers do not.
 */
export function federationRoutes(
  app: FastifyInstance,
  runtime: () => Promise<FederationRuntime>,
  social: SocialContext,
  bodyBytes: number,
): void {
  // Only this plugin's routes: raw bytes for every content type, bounded (the inbox is the only POST).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: bodyBytes }, (_req, body, done) => done(null, body));
  const pageDeps = { social };
  const logger = social.logger.child({ component: 'federation' });

  const webRequest = (req: FastifyRequest, path = req.url): Request => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const body = req.method === 'POST' && Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : undefined;
    return new Request(new URL(path, social.urls.base), { method: req.method, headers, body });
  };

  const toFedify = async (
    req: FastifyRequest,
    reply: FastifyReply,
    path = req.url,
    html?: () => string | null,
  ): Promise<FastifyReply> => {
    const request = webRequest(req, path);
    const { fedify, deps } = await runtime();
    let unserved = false;
    const response = await fedify.fetch(request, {
      contextData: deps,
      onNotFound: () => {
        unserved = true;
        return new Response(null, { status: 404 });
      },
      onNotAcceptable: () => {
        unserved = true;
        return new Response(null, { status: 406 });
      },
    });
    if (unserved) {
      const page = html?.();
      if (page) return reply.code(200).type('text/html; charset=utf-8').header('Vary', 'Accept').send(page);
      return reply.code(404).header('Cache-Control', 'no-store').send({ error: 'Record not found' });
    }
    reply.code(response.status);
    response.headers.forEach((value, name) => reply.header(name, value));
    if (!response.headers.has('vary')) reply.header('Vary', 'Accept');
    return reply.send(Buffer.from(await response.arrayBuffer()));
  };

  const profilePage = (username: string) => () => {
    const account = localAccount(pageDeps, username);
    if (!account || account.suspendedAt !== null) return null;
    const actor = social.urls.accountUri(account.username);
    return page(
      `${account.displayName || account.username} (@${account.username}@${social.urls.domain})`,
      actor,
      social.presenter.noteHtml(account),
    );
  };
  const statusPage = (username: string, id: string) => () => {
    const account = localAccount(pageDeps, username);
    const status = account && /^\d+$/.test(id) ? social.store.statuses.byId(id) : null;
    if (
      !account ||
      !status ||
      status.accountId !== account.id ||
      status.deletedAt !== null ||
      (status.visibility !== 'public' && status.visibility !== 'unlisted')
    )
      return null;
    return page(
      `${account.displayName || account.username}: ${status.spoilerText || 'post'}`,
      social.urls.statusUri(account.username, status.id),
      status.spoilerText ? `<p>${escapeHtml(status.spoilerText)}</p>` : status.content,
    );
  };

  const get = (url: string) => app.get(url, (req, reply) => toFedify(req, reply));
  get('/.well-known/webfinger');
  get('/actor');
  get('/users/:username/followers');
  get('/users/:username/following');
  get('/users/:username/outbox');
  get('/users/:username/collections/featured');
  get('/users/:username/collections/tags');
  get('/users/:username/quote_authorizations/:id');
  app.get<{ Params: { username: string } }>('/users/:username', (req, reply) =>
    toFedify(req, reply, req.url, profilePage(req.params.username)),
  );
  app.get<{ Params: { username: string; id: string } }>('/users/:username/statuses/:id', (req, reply) =>
    toFedify(req, reply, req.url, statusPage(req.params.username, req.params.id)),
  );
  // Activities from domains the server's policy refuses are dropped on arrival (answered 202, as accepted
  // and ignored), before any signature key is fetched from them.
  const refusedSender = (json: unknown): string | null => {
    if (typeof json !== 'object' || json === null) return null;
    try {
      const activity = json as { actor?: unknown };
      const actor =
        typeof activity.actor === 'string' ? activity.actor : (activity.actor as { id?: unknown } | undefined)?.id;
      const host = typeof actor === 'string' ? new URL(actor).hostname : null;
      return host && social.moderation.domainPolicy(host).refused ? host : null;
    } catch {
      return null;
    }
  };
  // The intake screened the headers (onRequest); here the signature is verified before Fedify parses anything.
  const inbox = async (req: FastifyRequest, reply: FastifyReply) => {
    const json = inboxBodyJson(req.body);
    const refused = refusedSender(json);
    if (refused) {
      logger.info({ domain: refused }, 'an inbox delivery from a blocked domain was dropped');
      return reply.code(202).send();
    }
    const { fedify, deps, intake } = await runtime();
    try {
      // Made when Fedify needs them: a delivery the verifier's worker checks and the intake queues needs neither.
      let request: Request | null = null;
      let context: RequestContext<FedDeps> | null = null;
      const delivery: InboxDelivery = {
        url: new URL(req.url, social.urls.base).href,
        request: () => (request ??= webRequest(req)),
        context: () => (context ??= fedify.createContext(delivery.request(), deps)),
      };
      return await intake.handle(req, reply, delivery, () => toFedify(req, reply), json);
    } catch (err) {
      // Fedify's reader throws on some malformed documents it does not count as invalid activities (a key
      // that is not PEM, a date out of range): the sender's error, answered 400 with the reason, not 500.
      if (!(err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError)) throw err;
      logger.info({ reason: err.message }, 'an inbox delivery could not be read');
      return reply.code(400).type('text/plain; charset=utf-8').send(`Invalid activity: ${err.message}`);
    }
  };
  // Screened on its headers before the body is read, as before Fedify was built.
  const screen = async (req: FastifyRequest, reply: FastifyReply) => (await runtime()).intake.screen(req, reply);
  app.post('/inbox', { onRequest: screen }, inbox);
  app.post('/users/:username/inbox', { onRequest: screen }, inbox);

  // Profile and status pages answer ActivityStreams too when asked for it (Mastodon does).
  app.get<{ Params: { username: string } }>('/@:username', (req, reply) => {
    const html = profilePage(req.params.username);
    if (!wantsActivityStreams(req)) return sendPage(reply, html());
    return toFedify(req, reply, `/users/${encodeURIComponent(req.params.username)}`, html);
  });
  app.get<{ Params: { username: string; id: string } }>('/@:username/:id', (req, reply) => {
    const html = statusPage(req.params.username, req.params.id);
    if (!wantsActivityStreams(req)) return sendPage(reply, html());
    return toFedify(
      req,
      reply,
      `/users/${encodeURIComponent(req.params.username)}/statuses/${encodeURIComponent(req.params.id)}`,
      html,
    );
  });

  // host-meta (XRD): peers that get no WebFinger answer look here for its template (Fedify does not serve it).
  // The self-check's probe: confirms a nonce issued for this data directory and shows what the request looked
  // like on arrival (Host, forwarded headers), so a check run through the public URL can tell a proxy's work.
  app.get<{ Params: { nonce: string } }>(`${PROBE_PATH}/:nonce`, async (req, reply) => {
    if (!knownProbeNonce(social.store, req.params.nonce))
      return reply.code(404).header('Cache-Control', 'no-store').send({ error: 'Record not found' });
    const header = (name: string) => {
      const v = req.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    };
    const echo: ProbeEcho = {
      instance: 'homeport',
      host: header('host'),
      forwardedProto: header('x-forwarded-proto'),
      forwardedFor: header('x-forwarded-for'),
      clientAddress: req.ip,
      // With a forwarded address, a trusted proxy makes req.ip the client's instead of the proxy's.
      trustProxy: header('x-forwarded-for') === null ? null : req.ip !== req.socket.remoteAddress,
    };
    return reply.header('Cache-Control', 'no-store').send(echo);
  });

  app.get('/.well-known/host-meta', (_req, reply) =>
    reply
      .type('application/xrd+xml; charset=utf-8')
      .send(
        `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${escapeHtml(social.urls.base)}/.well-known/webfinger?resource={uri}"/>\n</XRD>\n`,
      ),
  );
}

function sendPage(reply: FastifyReply, html: string | null): FastifyReply {
  if (!html) return reply.code(404).header('Cache-Control', 'no-store').send({ error: 'Record not found' });
  return reply.code(200).type('text/html; charset=utf-8').header('Vary', 'Accept').send(html);
}

/** A minimal public page: the title, the HTML body (already sanitized), and the ActivityPub alternate. */
function page(title: string, activityUrl: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><link rel="alternate" type="application/activity+json" href="${escapeHtml(activityUrl)}"></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

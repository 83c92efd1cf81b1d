import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { SocialContext } from '../context.ts';
import { ActionLimiter } from './action-limits.ts';
import { ApiError } from '../errors.ts';
import { authenticate, authenticateBeforeBody } from './auth.ts';
import { socialErrorHandler } from './errors.ts';
import { nestFlatPairs, nestJsonKeys, parseQueryString } from './params.ts';

/** Mastodon's general limit: 300 requests per 5 minutes per token, or per IP address without one. */
export const GENERAL_RATE_LIMIT = { max: 300, timeWindow: 5 * 60 * 1000 };
/** POST /api/v1/accounts: 5 sign-ups per 30 minutes per IP address. */
export const SIGN_UP_RATE_LIMIT = {
  max: 5,
  timeWindow: 30 * 60 * 1000,
  keyGenerator: (req: FastifyRequest) => `sign-up:${req.ip}`,
};
/** Sign-in form: 25 attempts per 5 minutes per IP address. */
export const SIGN_IN_RATE_LIMIT = {
  max: 25,
  timeWindow: 5 * 60 * 1000,
  keyGenerator: (req: FastifyRequest) => `sign-in:${req.ip}`,
};

/** Bounds of every multipart body; files are allowed per route (`config.uploads`), none by default. */
const MULTIPART_LIMITS = { fields: 200, fieldSize: 64 * 1024, parts: 210 };
const NO_UPLOADS = { files: 0, fileSize: 0 };

/**
 * Reads a multipart body into plain values and files (kept in memory, within MULTIPART_LIMITS), then nests
 * bracketed names. A malformed body is a 400, an oversized file a 413.
 */
async function readMultipart(req: FastifyRequest, incomingDir: string): Promise<Record<string, unknown>> {
  const pairs: Record<string, unknown[]> = {};
  const uploads = req.routeOptions.config?.uploads ?? NO_UPLOADS;
  try {
    for await (const part of req.parts({
      limits: { ...MULTIPART_LIMITS, files: uploads.files, fileSize: uploads.fileSize },
    })) {
      let value: unknown;
      if (part.type === 'file') {
        // Streamed to disk as it arrives: a 99 MB video never sits in memory. Removed when the request ends
        // unless storage adopted it.
        await fs.promises.mkdir(incomingDir, { recursive: true });
        const file = path.join(incomingDir, `${crypto.randomBytes(12).toString('hex')}.upload.tmp`);
        req.uploadedFiles.push(file);
        await pipeline(part.file, fs.createWriteStream(file, { mode: 0o600 }));
        if (part.file.truncated) throw Object.assign(new Error('file too large'), { statusCode: 413 });
        value = {
          filename: part.filename ?? '',
          mimetype: part.mimetype || 'application/octet-stream',
          path: file,
          size: (await fs.promises.stat(file)).size,
        };
      } else value = (part as { value: unknown }).value;
      (pairs[part.fieldname] ??= []).push(value);
    }
  } catch (err) {
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413)
      throw new ApiError(
        413,
        uploads.files === 0 ? 'This endpoint takes no file uploads' : 'The request body is too large',
      );
    throw new ApiError(400, `The multipart body is malformed: ${(err as Error).message}`);
  }
  const flat = Object.fromEntries(
    Object.entries(pairs).map(([k, v]) => [k, v.length === 1 && !k.endsWith('[]') ? v[0] : v]),
  );
  return nestFlatPairs(flat);
}

/**
 * The conventions every social endpoint shares, registered once in the social API's own fastify context:
 * body parsers (JSON, form, multipart) with Rails bracket parameters, CORS, rate limits with X-RateLimit-*
 * headers, token and scope checks, JSON errors, Cache-Control and Deprecation headers.
 */
export async function registerConventions(app: FastifyInstance, ctx: SocialContext): Promise<void> {
  app.decorateRequest('principal', null);
  app.decorateRequest('authChecked', false);
  app.decorateRequest('uploadedFiles', null as unknown as string[]);
  // The hooks every request runs are synchronous, with callbacks: an async hook costs a promise and a turn of
  // the microtask queue per request.
  const beforeBody = authenticateBeforeBody(ctx);
  app.addHook('onRequest', (req, _reply, done) => {
    req.uploadedFiles = [];
    // The IP block check, the token's and the handler's stamps share one data_version statement.
    ctx.store.shareDataVersion();
    try {
      // Addresses staff cut off entirely (a no_access IP block) get nothing, as Mastodon's blocklist.
      if (ctx.moderation.accessDenied(req.ip)) throw new ApiError(403, 'Forbidden');
      // Before the rate limit and before any body is read: the token, its scopes and its user.
      beforeBody(req);
    } catch (error) {
      return done(error as FastifyError);
    }
    done();
  });
  // Temporary upload files that storage did not adopt go when the response is sent (or the client went away).
  const dropUploads = (req: FastifyRequest, done: () => void) => {
    const files = req.uploadedFiles ?? [];
    if (files.length === 0) return done();
    void Promise.all(files.map((file) => fs.promises.rm(file, { force: true }).catch(() => undefined))).then(() =>
      done(),
    );
  };
  app.addHook('onResponse', (req, _reply, done) => dropUploads(req, done));
  app.addHook('onRequestAbort', (req, done) => dropUploads(req, done));

  // An empty JSON body counts as {} (clients send Content-Type: application/json with no body on POSTs).
  const defaultJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    defaultJson(req, body as string, (err, parsed) => {
      if (err) return done(new ApiError(400, 'The request body is not valid JSON'), undefined);
      done(
        null,
        parsed && typeof parsed === 'object' && !Array.isArray(parsed)
          ? nestJsonKeys(parsed as Record<string, unknown>)
          : parsed,
      );
    });
  });
  await app.register(fastifyFormbody, { parser: (text) => parseQueryString(String(text)) });
  await app.register(fastifyMultipart, { limits: { ...MULTIPART_LIMITS, ...NO_UPLOADS }, throwFileSizeLimit: true });
  // Browsers send text/plain for fetch() with a string body; an empty one is fine, anything else is not ours to read.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (req, body, done) => {
    if (String(body).trim() === '') return done(null, {});
    done(
      new ApiError(
        415,
        `Unsupported content type ${req.headers['content-type'] ?? ''}; send JSON, a form or multipart/form-data`,
      ),
      undefined,
    );
  });
  await app.register(fastifyCookie);
  await app.register(fastifyRateLimit, {
    // Off only where the owner turned the general limit off (a benchmark); per-route limits stay.
    global: ctx.generalRateLimit,
    ...GENERAL_RATE_LIMIT,
    // Keyed by who was verified, never by a token string as presented (a made-up one would get a fresh bucket).
    keyGenerator: (req) => {
      const p = req.principal;
      if (p?.account) return `account:${p.account.id}`;
      if (p) return `app:${p.app.id}`;
      return `ip:${req.ip}`;
    },
    errorResponseBuilder: () => new ApiError(429, 'Too many requests'),
  });

  app.setErrorHandler(socialErrorHandler);

  // Bracketed query parameters (fastify's own parser keeps `types[]` as a flat key).
  app.addHook('preValidation', (req, _reply, done) => {
    try {
      const q = req.url.indexOf('?');
      req.query = q >= 0 ? parseQueryString(req.url.slice(q + 1)) : {};
    } catch (error) {
      return done(error as FastifyError);
    }
    if (!req.isMultipart()) return done();
    readMultipart(req, ctx.media.incomingDir).then((body) => {
      req.body = body;
      done();
    }, done);
  });
  // The token (when it came in the body), then the per-account limits of posting, uploads, follows and reports.
  const check = authenticate(ctx);
  const limit = new ActionLimiter(() => ctx.store.now()).hook(ctx.generalRateLimit);
  app.addHook('preHandler', (req, reply, done) => {
    try {
      check(req);
      limit(req, reply);
    } catch (error) {
      return done(error as FastifyError);
    }
    done();
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    const config = req.routeOptions.config;
    if (!reply.hasHeader('cache-control'))
      reply.header('Cache-Control', config?.publicCache ? 'public, max-age=60' : 'private, no-store');
    if (config?.deprecated)
      reply.header('Deprecation', `@${Math.floor(Date.parse(`${config.deprecated}T00:00:00Z`) / 1000)}`);
    // Mastodon sends the end of the window as a timestamp; @fastify/rate-limit sends seconds until then.
    const reset = reply.getHeader('x-ratelimit-reset');
    if (reset !== undefined && /^\d+$/.test(String(reset)))
      reply.header('X-RateLimit-Reset', new Date(ctx.store.now() + Number(reset) * 1000).toISOString());
    done(null, payload);
  });

  app.addHook('onRoute', (route) => {
    const authRule = route.config?.auth;
    const url = route.url ?? route.path;
    if (!authRule) {
      // CORS preflight and HEAD twins need no rule; every other route must state one.
      if (route.method === 'OPTIONS' || route.method === 'HEAD') return;
      throw new Error(`social route ${String(route.method)} ${url} declares no auth rule`);
    }
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      ctx.routes.push({ method, url, auth: authRule, deprecated: Boolean(route.config?.deprecated) });
    }
  });
}

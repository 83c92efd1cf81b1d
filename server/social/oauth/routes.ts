import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, SIGN_IN_CSRF_COOKIE } from '../cookies.ts';
import { z } from 'zod';
import type { SocialContext } from '../context.ts';
import { userStateError } from '../domain/index.ts';
import { ApiError } from '../errors.ts';
import { auth, requestParams, SIGN_IN_RATE_LIMIT } from '../http/index.ts';
import { randomSecret, type OAuthApp, type User } from '../store/index.ts';
import { DESCRIPTIONS, OOB_REDIRECT, param, safeEqual, withQuery } from './protocol.ts';
import { tokenRoutes } from './token-routes.ts';
import { codePage, consentPage, messagePage, PAGE_CSP, signInPage } from './pages.ts';
import { ALL_SCOPES, DEFAULT_SCOPES, parseScopes, withinRegistered } from '../scopes.ts';

const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

/** The parameters of an authorization request, checked against the application. */
interface AuthorizationRequest {
  app: OAuthApp;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  forceLogin: boolean;
}

type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; page: string; status: number }
  | { ok: false; redirect: string };

/** The browser-facing OAuth flow (authorize, consent, sign-in and out, e-mail confirmation), then the token endpoints. */
export function oauthRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const title = () => ctx.store.settings.owner('title');
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', PAGE_CSP)
      .header('X-Frame-Options', 'DENY')
      .send(body);
  const secureCookies = ctx.urls.secure;

  function checkAuthorization(params: Record<string, unknown>): AuthorizationCheck {
    const clientId = param(params, 'client_id');
    const oauthApp = clientId ? ctx.store.oauth.appByClientId(clientId) : null;
    if (!oauthApp)
      return {
        ok: false,
        status: 400,
        page: messagePage({
          serverTitle: title(),
          title: 'Unknown application',
          message: 'The application that sent you here is not registered on this server (invalid client_id).',
          error: true,
        }),
      };
    const redirectUri =
      param(params, 'redirect_uri') ?? (oauthApp.redirectUris.length === 1 ? oauthApp.redirectUris[0] : undefined);
    if (!redirectUri || !oauthApp.redirectUris.includes(redirectUri)) {
      // Never redirect to an address the application did not register.
      return {
        ok: false,
        status: 400,
        page: messagePage({
          serverTitle: title(),
          title: 'Invalid redirect URI',
          message: 'The redirect URI included is not valid for this application.',
          error: true,
        }),
      };
    }
    const state = param(params, 'state') ?? null;
    const fail = (error: string, description: string): AuthorizationCheck =>
      redirectUri === OOB_REDIRECT
        ? {
            ok: false,
            status: 400,
            page: messagePage({
              serverTitle: title(),
              title: 'Authorization failed',
              message: `${error}: ${description}`,
              error: true,
            }),
          }
        : { ok: false, redirect: withQuery(redirectUri, { error, error_description: description, state }) };
    if (param(params, 'response_type') !== 'code')
      return fail('unsupported_response_type', 'The authorization server does not support this response type.');
    const requested = parseScopes(param(params, 'scope') ?? param(params, 'scopes'));
    const scopes = requested.length ? requested : DEFAULT_SCOPES;
    if (!scopes.every((s) => ALL_SCOPES.includes(s)) || !withinRegistered(oauthApp.scopes, scopes))
      return fail('invalid_scope', DESCRIPTIONS.invalid_scope);
    const codeChallenge = param(params, 'code_challenge') ?? null;
    const method = param(params, 'code_challenge_method') ?? null;
    if (codeChallenge !== null && (method ?? 'plain') !== 'S256')
      return fail('invalid_request', 'Only the S256 code challenge method is supported.');
    if (codeChallenge !== null && !/^[A-Za-z0-9_-]{43,128}$/.test(codeChallenge))
      return fail('invalid_request', 'The code challenge is malformed.');
    const forceLogin = ['true', '1'].includes(param(params, 'force_login') ?? '');
    return {
      ok: true,
      request: {
        app: oauthApp,
        redirectUri,
        scopes,
        state,
        codeChallenge,
        codeChallengeMethod: codeChallenge ? 'S256' : null,
        forceLogin,
      },
    };
  }

  function sessionOf(req: FastifyRequest): { session: { id: string; csrfToken: string }; user: User } | null {
    const secret = req.cookies[SESSION_COOKIE];
    if (!secret) return null;
    const session = ctx.store.oauth.sessionBySecret(secret);
    if (!session) return null;
    const user = ctx.store.users.byId(session.userId);
    return user ? { session, user } : null;
  }

  function renderSignIn(
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    appName: string | null,
    returnTo: string,
    extra: { login?: string; error?: string } = {},
  ) {
    let csrf = req.cookies[SIGN_IN_CSRF_COOKIE];
    if (!csrf || !/^[A-Za-z0-9_-]{43}$/.test(csrf)) {
      csrf = randomSecret();
      reply.setCookie(SIGN_IN_CSRF_COOKIE, csrf, { path: '/', httpOnly: true, sameSite: 'lax', secure: secureCookies });
    }
    return html(
      reply,
      status,
      signInPage({ serverTitle: title(), domain: ctx.urls.domain, appName, returnTo, csrf, ...extra }),
    );
  }

  function userBlockedPage(user: User): string | null {
    const account = ctx.store.accounts.byId(user.accountId);
    const state = account ? userStateError(user, account) : new ApiError(403, 'Your login is currently disabled');
    if (!state) return null;
    const messages: Record<string, string> = {
      'Your login is missing a confirmed e-mail address':
        'Confirm your e-mail address first: open the link in the confirmation e-mail we sent you.',
      'Your login is currently pending approval': 'Your account is waiting for approval by the server staff.',
      'Your login is currently disabled': 'Your account is disabled.',
    };
    return messagePage({
      serverTitle: title(),
      title: 'Cannot sign in to the application',
      message: messages[state.message] ?? state.message,
      error: true,
    });
  }

  // GET /oauth/authorize: sign in if needed, then ask for consent.
  app.get('/oauth/authorize', { config: { auth: auth.public() } }, async (req, reply) => {
    const params = requestParams(req);
    const check = checkAuthorization(params);
    if (!check.ok)
      return 'redirect' in check ? reply.redirect(check.redirect, 302) : html(reply, check.status, check.page);
    const { request } = check;
    const current = sessionOf(req);
    const returnTo = req.url;
    if (!current || request.forceLogin) {
      if (current && request.forceLogin) {
        ctx.applications.signOut(current.session.id);
        reply.clearCookie(SESSION_COOKIE, { path: '/' });
        // Keep force_login from looping: after signing in again the same URL must show the consent page.
        const url = new URL(req.url, ctx.urls.base);
        url.searchParams.delete('force_login');
        return renderSignIn(req, reply, 200, request.app.name, url.pathname + url.search);
      }
      return renderSignIn(req, reply, 200, request.app.name, returnTo);
    }
    const blocked = userBlockedPage(current.user);
    if (blocked) return html(reply, 403, blocked);
    const account = ctx.store.accounts.byId(current.user.accountId)!;
    return html(
      reply,
      200,
      consentPage({
        serverTitle: title(),
        domain: ctx.urls.domain,
        appName: request.app.name,
        appWebsite: request.app.website,
        username: account.username,
        scopes: request.scopes,
        csrf: current.session.csrfToken,
        fields: {
          client_id: request.app.clientId,
          redirect_uri: request.redirectUri,
          scope: request.scopes.join(' '),
          state: request.state,
          response_type: 'code',
          code_challenge: request.codeChallenge,
          code_challenge_method: request.codeChallengeMethod,
        },
      }),
    );
  });

  // POST /oauth/authorize: the consent form's answer.
  app.post('/oauth/authorize', { config: { auth: auth.public() } }, async (req, reply) => {
    const params = requestParams(req);
    const current = sessionOf(req);
    if (!current || !safeEqual(param(params, 'csrf_token') ?? '', current.session.csrfToken)) {
      return html(
        reply,
        403,
        messagePage({
          serverTitle: title(),
          title: 'Session expired',
          message:
            'Your session expired or the form was not sent from this server. Go back to the application and try again.',
          error: true,
        }),
      );
    }
    const check = checkAuthorization(params);
    if (!check.ok)
      return 'redirect' in check ? reply.redirect(check.redirect, 302) : html(reply, check.status, check.page);
    const { request } = check;
    const blocked = userBlockedPage(current.user);
    if (blocked) return html(reply, 403, blocked);
    if (param(params, 'decision') !== 'authorize') {
      if (request.redirectUri === OOB_REDIRECT)
        return html(
          reply,
          200,
          messagePage({
            serverTitle: title(),
            title: 'Authorization denied',
            message: `You did not allow ${request.app.name} to use your account.`,
          }),
        );
      return reply.redirect(
        withQuery(request.redirectUri, {
          error: 'access_denied',
          error_description: 'The resource owner or authorization server denied the request.',
          state: request.state,
        }),
        302,
      );
    }
    const code = ctx.applications.grantCode({
      applicationId: request.app.id,
      userId: current.user.id,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
    });
    if (request.redirectUri === OOB_REDIRECT)
      return html(reply, 200, codePage({ serverTitle: title(), appName: request.app.name, code }));
    return reply.redirect(withQuery(request.redirectUri, { code, state: request.state }), 302);
  });

  const signInBody = z.object({
    login: z.string().max(320),
    password: z.string().max(1024),
    return_to: z.string().max(4000),
    csrf_token: z.string().max(100),
  });

  app.post('/auth/sign_in', { config: { auth: auth.public(), rateLimit: SIGN_IN_RATE_LIMIT } }, async (req, reply) => {
    const parsed = signInBody.safeParse(requestParams(req));
    if (!parsed.success)
      return html(
        reply,
        400,
        messagePage({
          serverTitle: title(),
          title: 'Sign-in failed',
          message: 'The sign-in form was incomplete.',
          error: true,
        }),
      );
    const { login, password, csrf_token: csrf } = parsed.data;
    // Only ever send people back into the authorization flow of this server.
    const returnTo = parsed.data.return_to.startsWith('/oauth/authorize') ? parsed.data.return_to : '/oauth/authorize';
    const cookieCsrf = req.cookies[SIGN_IN_CSRF_COOKIE];
    if (!cookieCsrf || !safeEqual(csrf, cookieCsrf))
      return renderSignIn(req, reply, 403, null, returnTo, { login, error: 'The form expired. Please sign in again.' });
    const found = await ctx.accounts.authenticate(login, password);
    if (!found)
      return renderSignIn(req, reply, 401, null, returnTo, {
        login,
        error: 'Invalid username, e-mail address or password.',
      });
    const { secret } = ctx.applications.signIn(found.user.id, {
      ip: req.ip,
      userAgent: req.headers['user-agent']?.slice(0, 500) ?? null,
      ttlMs: SESSION_TTL_MS,
    });
    reply.setCookie(SESSION_COOKIE, secret, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies,
      maxAge: SESSION_TTL_MS / 1000,
    });
    reply.clearCookie(SIGN_IN_CSRF_COOKIE, { path: '/' });
    return reply.redirect(returnTo, 303);
  });

  app.post('/auth/sign_out', { config: { auth: auth.public() } }, async (req, reply) => {
    const current = sessionOf(req);
    if (current && safeEqual(param(requestParams(req), 'csrf_token') ?? '', current.session.csrfToken))
      ctx.applications.signOut(current.session.id);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return html(
      reply,
      200,
      messagePage({
        serverTitle: title(),
        title: 'Signed out',
        message: 'You are signed out. Return to your application to sign in again.',
      }),
    );
  });

  // The link in the confirmation e-mail.
  app.get('/auth/confirmation', { config: { auth: auth.public() } }, async (req, reply) => {
    const token = param(requestParams(req), 'confirmation_token');
    const confirmed = token ? ctx.accounts.confirmByToken(token) : null;
    if (!confirmed) {
      return html(
        reply,
        404,
        messagePage({
          serverTitle: title(),
          title: 'Confirmation failed',
          message: 'This confirmation link is invalid or was already used. Request a new e-mail from your app.',
          error: true,
        }),
      );
    }
    const pending = confirmed.user.approved
      ? ''
      : ' Your account still has to be approved by the server staff before you can use it.';
    return html(
      reply,
      200,
      messagePage({
        serverTitle: title(),
        title: 'E-mail address confirmed',
        message: `Thank you, @${confirmed.account.username}: your e-mail address is confirmed.${pending}`,
      }),
    );
  });

  tokenRoutes(app, ctx);
}

import type { FastifyInstance } from 'fastify';
import { CredentialThrottle } from '../../security/index.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  requireOwner,
  SESSION_TTL_MS,
  tokenOf,
  UI_API_PREFIX,
  UI_SESSION_COOKIE,
  type UiCredentialCheck,
  type UiPrincipal,
  type UiSessions,
} from './auth.ts';

/** Changes the signed-in account's own password (the UI's forced change of the default one). */
export type UiPasswordChange = (
  principal: UiPrincipal,
  currentPassword: string,
  newPassword: string,
) => Promise<'changed' | 'wrong-password' | 'unsupported' | 'invalid'>;

const MIN_NEW_PASSWORD = 8;
/** The cookie goes only with requests to the UI API. */
const COOKIE_PATH = UI_API_PREFIX;

/** Sets the browser's session cookie (see UI_SESSION_COOKIE); Secure when the page came over https. */
function setSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(UI_SESSION_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure: req.protocol === 'https',
    maxAge: SESSION_TTL_MS / 1000,
  });
}

const signInBody = {
  type: 'object',
  required: ['username', 'password'],
  additionalProperties: false,
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

const passwordBody = {
  type: 'object',
  required: ['currentPassword', 'newPassword'],
  additionalProperties: false,
  properties: {
    currentPassword: { type: 'string', minLength: 1, maxLength: 1024 },
    newPassword: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

export function sessionRoutes(
  app: FastifyInstance,
  sessions: UiSessions,
  check: UiCredentialCheck,
  changePassword: UiPasswordChange,
  throttle = new CredentialThrottle(),
): void {
  app.post<{ Body: { username: string; password: string } }>(
    '/session',
    { schema: { body: signInBody } },
    async (req, reply) => {
      const { username, password } = req.body;
      const wait = throttle.retryAfter(req.ip, username);
      if (wait > 0) {
        req.log.warn(
          { user: username, from: req.ip, retryAfterSeconds: wait },
          'UI sign-in refused: too many failed attempts',
        );
        return reply
          .code(429)
          .header('Retry-After', String(wait))
          .send({ error: `Too many failed sign-ins; try again in ${wait} s` });
      }
      const principal = await check(username, password, req.ip);
      throttle.record(req.ip, username, principal !== null);
      if (!principal) {
        req.log.warn({ user: username, from: req.ip }, 'UI sign-in failed');
        return reply.code(401).send({ error: 'Wrong user name or password, or not an owner account' });
      }
      const token = sessions.mint(principal);
      setSessionCookie(req, reply, token);
      return { token, user: principal };
    },
  );

  const open = { preHandler: requireOwner(sessions), config: { allowWithDefaultPassword: true } };
  app.get('/session', open, async (req) => ({ user: req.uiPrincipal }));

  app.put<{ Body: { currentPassword: string; newPassword: string } }>(
    '/session/password',
    { ...open, schema: { body: passwordBody } },
    async (req, reply) => {
      const { currentPassword, newPassword } = req.body;
      if (newPassword === currentPassword)
        return reply.code(422).send({ error: 'Choose a new password, not the old one' });
      if ([...newPassword].length < MIN_NEW_PASSWORD)
        return reply.code(422).send({ error: `The new password needs at least ${MIN_NEW_PASSWORD} characters` });
      const outcome = await changePassword(req.uiPrincipal!, currentPassword, newPassword);
      if (outcome === 'wrong-password') return reply.code(422).send({ error: 'The current password is wrong' });
      if (outcome === 'unsupported')
        return reply.code(400).send({ error: 'This session has no password of its own to change' });
      if (outcome === 'invalid')
        return reply.code(422).send({ error: 'The new password is not valid (it may not be the default one)' });
      // The account's sessions have ended with the change (this one too): the UI signs in again with the new password.
      return { changed: true };
    },
  );

  app.delete('/session', open, async (req, reply) => {
    const token = tokenOf(req);
    if (token) sessions.revoke(token);
    // The cookie's session ends too when it differs from the bearer token that asked.
    const cookie = req.cookies?.[UI_SESSION_COOKIE];
    if (cookie) sessions.revoke(cookie);
    reply.clearCookie(UI_SESSION_COOKIE, { path: COOKIE_PATH });
    return {};
  });
}

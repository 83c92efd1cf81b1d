import type { FastifyInstance } from 'fastify';
import { CredentialThrottle } from '../../security/index.ts';
import { requireOwner, tokenOf, type UiCredentialCheck, type UiSessions } from './auth.ts';

const signInBody = {
  type: 'object',
  required: ['username', 'password'],
  additionalProperties: false,
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

export function sessionRoutes(app: FastifyInstance, sessions: UiSessions, check: UiCredentialCheck, throttle = new CredentialThrottle()): void {
  app.post<{ Body: { username: string; password: string } }>('/session', { schema: { body: signInBody } }, async (req, reply) => {
    const { username, password } = req.body;
    const wait = throttle.retryAfter(req.ip, username);
    if (wait > 0) {
      req.log.warn({ user: username, from: req.ip, retryAfterSeconds: wait }, 'UI sign-in refused: too many failed attempts');
      return reply.code(429).header('Retry-After', String(wait)).send({ error: `Too many failed sign-ins; try again in ${wait} s` });
    }
    const principal = await check(username, password, req.ip);
    throttle.record(req.ip, username, principal !== null);
    if (!principal) {
      req.log.warn({ user: username, from: req.ip }, 'UI sign-in failed');
      return reply.code(401).send({ error: 'Wrong user name or password, or not an owner account' });
    }
    return { token: sessions.mint(principal), user: principal };
  });

  app.get('/session', { preHandler: requireOwner(sessions) }, async (req) => ({ user: req.uiPrincipal }));

  app.delete('/session', { preHandler: requireOwner(sessions) }, async (req) => {
    const token = tokenOf(req);
    if (token) sessions.revoke(token);
    return {};
  });
}

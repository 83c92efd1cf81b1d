import type { FastifyInstance } from 'fastify';
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

export function sessionRoutes(app: FastifyInstance, sessions: UiSessions, check: UiCredentialCheck): void {
  app.post<{ Body: { username: string; password: string } }>('/session', { schema: { body: signInBody } }, async (req, reply) => {
    const principal = await check(req.body.username, req.body.password);
    if (!principal) return reply.code(401).send({ error: 'Wrong user name or password, or not an owner account' });
    return { token: sessions.mint(principal), user: principal };
  });

  app.get('/session', { preHandler: requireOwner(sessions) }, async (req) => ({ user: req.uiPrincipal }));

  app.delete('/session', { preHandler: requireOwner(sessions) }, async (req) => {
    const token = tokenOf(req);
    if (token) sessions.revoke(token);
    return {};
  });
}

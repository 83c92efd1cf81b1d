import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EventLogUserError, type AccessTokenInfo, type Principal } from '../store/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { sendError, UiApiError } from './ui-errors.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

/** The longest lifetime the UI offers, in days (the CLI takes any). */
const MAX_EXPIRY_DAYS = 3650;
const DAY_MS = 86_400_000;

/**
 * Bearer tokens for gRPC clients (`{ bearerToken }`): a user lists, creates and revokes their own; members of
 * $admins (and the machine's owner) any user's. The secret is in the create answer only.
 */
export function eventLogTokenRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };
  const isAdmin = (p: Principal) => p.groups.includes('$admins');
  /** Whose tokens a request may touch: its own, or anyone's for an administrator. */
  const ownerOf = (req: FastifyRequest, requested: string | undefined): string | undefined => {
    const caller = callerOf(req, deps);
    if (isAdmin(caller)) return requested;
    if (requested !== undefined && requested !== caller.name)
      throw new UiApiError(403, "Only members of $admins manage other users' tokens");
    return caller.name;
  };
  const view = (t: AccessTokenInfo) => ({
    id: t.id,
    user: t.user,
    name: t.name,
    createdAt: t.createdAt,
    expiresAt: t.expiresAt,
  });

  app.get<{ Querystring: { user?: string } }>(
    '/eventlog/tokens',
    {
      ...auth,
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { user: { type: 'string', minLength: 1, maxLength: 255 } },
        },
      },
    },
    async (req, reply) => {
      try {
        return { tokens: deps.tokens.list(ownerOf(req, req.query.user)).map(view) };
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.post<{ Body: { user?: string; name?: string; expiresInDays?: number } }>(
    '/eventlog/tokens',
    {
      ...auth,
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            user: { type: 'string', minLength: 1, maxLength: 255 },
            name: { type: 'string', maxLength: 200 },
            expiresInDays: { type: 'integer', minimum: 1, maximum: MAX_EXPIRY_DAYS },
          },
        },
      },
    },
    async (req, reply) => {
      try {
        // An administrator names the user, or gets a token of their own when signed in as an event-log user.
        const caller = callerOf(req, deps).name;
        const user = ownerOf(req, req.body.user) ?? (deps.users.get(caller) ? caller : undefined);
        if (user === undefined) throw new UiApiError(400, 'Say which event-log user the token is for');
        const days = req.body.expiresInDays;
        const { token, info } = await deps.tokens.create(user, {
          name: req.body.name,
          expiresInMs: days === undefined ? undefined : days * DAY_MS,
        });
        return reply.code(201).send({ token, info: view(info) });
      } catch (err) {
        return sendError(reply, asTokenError(err));
      }
    },
  );

  app.delete<{ Params: { id: string } }>('/eventlog/tokens/:id', auth, async (req, reply) => {
    try {
      const token = deps.tokens.get(req.params.id);
      const caller = callerOf(req, deps);
      // Someone else's token answers as a missing one: ids are not to be probed.
      if (!token || (!isAdmin(caller) && token.user !== caller.name))
        throw new UiApiError(404, `There is no token "${req.params.id}"`);
      await deps.tokens.revoke(token.id);
      return { revoked: true };
    } catch (err) {
      return sendError(reply, asTokenError(err));
    }
  });
}

function asTokenError(err: unknown): unknown {
  if (!(err instanceof EventLogUserError)) return err;
  return new UiApiError(err.code === 'NOT_FOUND' ? 404 : 400, err.message);
}

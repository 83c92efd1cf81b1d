import type { FastifyInstance } from 'fastify';
import { DEFAULT_PASSWORD, EventLogUserError } from '../store/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { sendError, UiApiError } from './ui-errors.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

const NAME = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\s/?#@:]+$' } as const;
const PASSWORD = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const GROUP = { type: 'string', minLength: 1, maxLength: 255 } as const;
/**
 * The accounts a new install creates with the public password `changeit`: the list says which still have it
 * (one password check each, so not every account's: a check costs a hash).
 */
const INSTALL_ACCOUNTS = new Set(['admin', 'ops']);

/** The users store reports the caller's mistakes as EventLogUserError; its message is shown as-is. */
function asUserError(err: unknown): unknown {
  if (!(err instanceof EventLogUserError)) return err;
  return new UiApiError(err.code === 'NOT_FOUND' ? 404 : err.code === 'EXISTS' ? 409 : 400, err.message);
}

/** Event-log accounts (the ones TCP clients sign in with): list, add, change password, remove. Administrators only. */
export function eventLogUserRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };
  const mustBeAdmin = (req: Parameters<typeof callerOf>[0]) => {
    if (!callerOf(req, deps).groups.includes('$admins'))
      throw new UiApiError(403, 'Only members of $admins manage event-log users');
  };

  app.get('/eventlog/users', auth, async (req, reply) => {
    try {
      mustBeAdmin(req);
      const users = deps.users.list();
      const defaultPassword = await Promise.all(
        users.map((u) => INSTALL_ACCOUNTS.has(u.name) && deps.users.hasPassword(u.name, DEFAULT_PASSWORD)),
      );
      return {
        users: users.map((u, i) => ({
          name: u.name,
          fullName: u.fullName,
          groups: u.groups,
          disabled: u.disabled,
          createdAt: u.createdAt,
          defaultPassword: defaultPassword[i],
        })),
      };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.post<{ Body: { name: string; password: string; fullName?: string; groups?: string[] } }>(
    '/eventlog/users',
    {
      ...auth,
      schema: {
        body: {
          type: 'object',
          required: ['name', 'password'],
          additionalProperties: false,
          properties: {
            name: NAME,
            password: PASSWORD,
            fullName: { type: 'string', maxLength: 255 },
            groups: { type: 'array', maxItems: 64, items: GROUP },
          },
        },
      },
    },
    async (req, reply) => {
      const { name } = req.body;
      try {
        mustBeAdmin(req);
        if (deps.users.get(name)) throw new UiApiError(409, `User "${name}" already exists`);
        const user = await deps.users.add({
          name,
          password: req.body.password,
          fullName: req.body.fullName || name,
          groups: req.body.groups ?? [],
        });
        return reply.code(201).send({
          user: {
            name: user.name,
            fullName: user.fullName,
            groups: user.groups,
            disabled: user.disabled,
            createdAt: user.createdAt,
          },
        });
      } catch (err) {
        return sendError(reply, asUserError(err));
      }
    },
  );

  app.put<{ Params: { name: string }; Body: { password: string } }>(
    '/eventlog/users/:name/password',
    {
      ...auth,
      schema: {
        body: {
          type: 'object',
          required: ['password'],
          additionalProperties: false,
          properties: { password: PASSWORD },
        },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      try {
        mustBeAdmin(req);
        if (!deps.users.get(name)) throw new UiApiError(404, `There is no user "${name}"`);
        await deps.users.changePassword(name, req.body.password);
        return { changed: true };
      } catch (err) {
        return sendError(reply, asUserError(err));
      }
    },
  );

  app.delete<{ Params: { name: string } }>('/eventlog/users/:name', auth, async (req, reply) => {
    const { name } = req.params;
    try {
      mustBeAdmin(req);
      if (!deps.users.get(name)) throw new UiApiError(404, `There is no user "${name}"`);
      if (req.uiPrincipal?.via === 'eventlog-admin' && req.uiPrincipal.name === name)
        throw new UiApiError(400, 'You cannot remove the account you are signed in with');
      await deps.users.remove(name);
      return { removed: true };
    } catch (err) {
      return sendError(reply, asUserError(err));
    }
  });
}

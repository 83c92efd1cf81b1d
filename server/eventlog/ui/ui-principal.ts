import type { UiPrincipal } from '../../http/index.ts';
import type { EventLogUsers, Principal } from '../store/index.ts';
import type { EventLogUiDeps } from './eventlog-context.ts';
import { UiApiError } from './ui-errors.ts';
import type { FastifyRequest } from 'fastify';

/**
 * The event-log principal the UI acts as, so stream ACLs apply: the signed-in event-log account itself, or,
 * for the desktop app's token and the social owner (both the machine's owner), an administrator named after
 * them. An event-log account that is gone or disabled acts as nobody: its session has ended.
 */
export function principalFor(ui: UiPrincipal | undefined, users: EventLogUsers): Principal {
  if (ui?.via === 'eventlog-admin') {
    const user = users.get(ui.name);
    if (user && !user.disabled) return { name: user.name, groups: user.groups };
    throw new UiApiError(401, 'Your session ended. Sign in again.');
  }
  if (ui?.via === 'app-token' || ui?.via === 'social-owner') return { name: ui.name, groups: ['$admins'] };
  throw new UiApiError(401, 'Sign in as the owner to use this API');
}

export function callerOf(req: FastifyRequest, deps: EventLogUiDeps): Principal {
  return principalFor(req.uiPrincipal, deps.users);
}

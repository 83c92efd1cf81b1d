import type { FastifyPluginAsync } from 'fastify';
import { requireOwner, type UiSessions } from '../http/ui-api.ts';
import type { SocialContext } from './context.ts';
import { checkInstance, type SelfCheckReport } from './federation/index.ts';

export type { SelfCheckReport };

/** The social server's routes in the Homeport UI's API (owner only): the federation self-check. */
export function socialUiRoutes(ctx: SocialContext): FastifyPluginAsync<{ sessions: UiSessions }> {
  return async (app, { sessions }) => {
    let running: Promise<SelfCheckReport> | null = null;
    app.post('/federation/self-check', { preHandler: requireOwner(sessions) }, async () => {
      // One check at a time: a second click waits for the first instead of fetching everything again.
      running ??= checkInstance(ctx).finally(() => (running = null));
      return running;
    });
  };
}

import fastifyCookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import type { LogRing } from '../logger.ts';
import { UiSessions, type UiCredentialCheck } from './ui/auth.ts';
import { backupRoutes } from './ui/backup.ts';
import { logRoutes } from './ui/logs.ts';
import { serverInfoRoutes, type ServerInfo } from './ui/server-info.ts';
import { sessionRoutes, type UiPasswordChange } from './ui/session.ts';

export { UiSessions, requireOwner, type UiPrincipal, type UiCredentialCheck } from './ui/auth.ts';
export type { ServerInfo } from './ui/server-info.ts';
export type { BackupJob } from './ui/backup.ts';
export type { UiPasswordChange } from './ui/session.ts';

export interface UiApiOptions {
  sessions: UiSessions;
  checkCredentials: UiCredentialCheck;
  changePassword: UiPasswordChange;
  serverInfo: () => ServerInfo;
  logs: LogRing;
  /** The data directory the Server view's backup button copies. */
  dataDir: string;
  /** Subsystems add their own owner-only routes here (event log browser, subscriptions monitor). */
  extraRoutes?: FastifyPluginAsync<{ sessions: UiSessions }>[];
}

export { UI_API_PREFIX } from './ui/auth.ts';

/** The renderer's own versioned JSON API. Every route but sign-in needs the owner's token. */
export function registerUiApi(options: UiApiOptions): FastifyPluginAsync {
  return async (app) => {
    // The UI polls its GET routes every second or two; logging each request would push everything else
    // out of the in-memory log the Server view shows. Changes (POST/PUT/DELETE) are still logged.
    app.addHook('onRoute', (route) => {
      if ((route.method === 'GET' || route.method === 'HEAD') && !route.logLevel) route.logLevel = 'warn';
    });
    // The session cookie of a browser sign-in (ui/session.ts); scoped to this plugin's routes.
    await app.register(fastifyCookie);
    sessionRoutes(app, options.sessions, options.checkCredentials, options.changePassword);
    serverInfoRoutes(app, options.sessions, options.serverInfo);
    logRoutes(app, options.sessions, options.logs);
    backupRoutes(app, options.sessions, options.dataDir);
    for (const routes of options.extraRoutes ?? []) await app.register(routes, { sessions: options.sessions });
  };
}

import type { FastifyInstance } from 'fastify';
import type { LogRing } from '../../logger.ts';
import { requireOwner, type UiSessions } from './auth.ts';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export function logRoutes(app: FastifyInstance, sessions: UiSessions, ring: LogRing): void {
  app.get<{ Querystring: { level?: string; q?: string; limit?: number } }>(
    '/logs',
    {
      onRequest: requireOwner(sessions),
      schema: {
        querystring: {
          type: 'object',
          properties: {
            level: { type: 'string', enum: LEVELS },
            q: { type: 'string', maxLength: 200 },
            limit: { type: 'integer', minimum: 1, maximum: 2000, default: 200 },
          },
        },
      },
    },
    async (req) => {
      const min = LEVELS.indexOf(req.query.level ?? 'trace');
      const q = req.query.q?.toLowerCase();
      const entries = ring.entries.filter(
        (e) => LEVELS.indexOf(e.level) >= min && (!q || e.line.toLowerCase().includes(q)),
      );
      return { entries: entries.slice(-(req.query.limit ?? 200)) };
    },
  );
}

import type { FastifyInstance } from 'fastify';
import { requireOwner, type UiSessions } from './auth.ts';

export interface ServerInfo {
  version: string;
  dataDir: string;
  startedAt: string;
  listeners: { name: string; protocol: string; address: string; url: string }[];
  databases: { name: string; file: string; bytes: number }[];
}

export function serverInfoRoutes(app: FastifyInstance, sessions: UiSessions, info: () => ServerInfo): void {
  app.get('/server', { preHandler: requireOwner(sessions) }, async () => info());
}

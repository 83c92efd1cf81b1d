import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { openDatabase, type Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { socialMigrations } from './migrations.ts';

export interface OpenSocialOptions {
  dataDir: string;
  logger: Logger;
  /** Public host[:port], e.g. "localhost:3000". */
  domain: string;
}

export interface Social {
  db: Database;
  file: string;
  /** Registered at the root of the HTTP server (/api/v1, /oauth, /.well-known, …). */
  plugin: FastifyPluginAsync;
  /** The UI accepts the social owner's credentials too. */
  checkOwnerCredentials(username: string, password: string): Promise<{ name: string } | null>;
  close(): Promise<void>;
}

export async function openSocial(options: OpenSocialOptions): Promise<Social> {
  const file = path.join(options.dataDir, 'social.db');
  const db = openDatabase(file, { migrations: socialMigrations, synchronous: 'NORMAL' });
  return {
    db,
    file,
    plugin: async () => {},
    checkOwnerCredentials: async () => null,
    async close() {
      db.close();
    },
  };
}

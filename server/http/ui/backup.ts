import type { FastifyInstance } from 'fastify';
import { backupDataDir, BackupError, checkBackupTarget, type BackupManifest } from '../../backup/index.ts';
import { requireOwner, type UiSessions } from './auth.ts';

/** The Server view's backup: one at a time, run in the server process, its progress polled. */
export interface BackupJob {
  state: 'idle' | 'running' | 'done' | 'failed';
  directory: string | null;
  step: string | null;
  fraction: number;
  error: string | null;
  result: BackupManifest | null;
}

const body = {
  type: 'object',
  required: ['directory'],
  additionalProperties: false,
  properties: { directory: { type: 'string', minLength: 1, maxLength: 4096 } },
} as const;

export function backupRoutes(app: FastifyInstance, sessions: UiSessions, dataDir: string): void {
  let job: BackupJob = { state: 'idle', directory: null, step: null, fraction: 0, error: null, result: null };
  const auth = { preHandler: requireOwner(sessions) };

  app.get('/backup', auth, async () => job);

  app.post<{ Body: { directory: string } }>('/backup', { ...auth, schema: { body } }, async (req, reply) => {
    if (job.state === 'running') return reply.code(409).send({ error: 'A backup is already running' });
    const directory = req.body.directory.trim();
    try {
      checkBackupTarget(directory);
    } catch (err) {
      return reply.code(422).send({ error: (err as BackupError).message });
    }
    job = { state: 'running', directory, step: null, fraction: 0, error: null, result: null };
    const current = job;
    backupDataDir(dataDir, directory, (p) => {
      current.step = p.step;
      current.fraction = p.fraction;
    }).then(
      (manifest) => {
        current.state = 'done';
        current.result = manifest;
        req.log.info({ directory, files: manifest.files }, 'backup written');
      },
      (err: unknown) => {
        current.state = 'failed';
        current.error = err instanceof BackupError ? err.message : `The backup failed: ${(err as Error).message}`;
        req.log.warn({ err, directory }, 'backup failed');
      },
    );
    return reply.code(202).send(job);
  });
}

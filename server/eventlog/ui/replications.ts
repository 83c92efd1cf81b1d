import type { FastifyInstance } from 'fastify';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import {
  ReplicationManager,
  ReplicationRequestError,
  type LogPosition,
  type ReplicationJob,
  type ReplicationRequest,
} from '../replication/index.ts';
import { callerOf } from './ui-principal.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

/** A replication as the page sees it: positions as decimal text. */
export interface UiReplication extends Omit<ReplicationJob, 'progress' | 'summary'> {
  progress:
    | (Omit<NonNullable<ReplicationJob['progress']>, 'position' | 'head'> & {
        position: string | null;
        head: string | null;
      })
    | null;
  summary: (Omit<NonNullable<ReplicationJob['summary']>, 'position'> & { position: string | null }) | null;
}

const text = (p: LogPosition | null) => (p ? `${p.commit}/${p.prepare}` : null);

function uiReplication(job: ReplicationJob): UiReplication {
  return {
    ...job,
    progress: job.progress
      ? { ...job.progress, position: text(job.progress.position), head: text(job.progress.head) }
      : null,
    summary: job.summary ? { ...job.summary, position: text(job.summary.position) } : null,
  };
}

const address = { type: 'string', minLength: 1, maxLength: 2048 };
const prefixes = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 1000 } };
const requestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: address,
    to: address,
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    continuous: { type: 'boolean' },
    intoExisting: { type: 'boolean' },
    name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,100}$' },
    streamPrefixes: prefixes,
    eventTypePrefixes: prefixes,
  },
};

/**
 * Replications between this server's store ("local") and another server, for the Replication page: start one,
 * watch its progress (poll the list), stop it. Credentials travel inside the address and are never returned.
 */
export function replicationRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };
  const manager = new ReplicationManager(deps.store);
  app.addHook('onClose', () => manager.close());

  app.get('/eventlog/replications', auth, async () => ({ replications: manager.list().map(uiReplication) }));

  app.post<{ Body: ReplicationRequest }>(
    '/eventlog/replications',
    { ...auth, schema: { body: requestSchema } },
    async (req, reply) => {
      try {
        // Replication reaches other servers with credentials: for administrators only (the owner's sessions are).
        if (!callerOf(req, deps).groups.includes('$admins'))
          return reply.code(403).send({ error: 'Only members of $admins start replications' });
        return reply.code(201).send(uiReplication(await manager.start(req.body)));
      } catch (err) {
        if (err instanceof ReplicationRequestError) return reply.code(400).send({ error: err.message });
        throw err;
      }
    },
  );

  app.delete<{ Params: { id: string } }>('/eventlog/replications/:id', auth, async (req, reply) => {
    if (!(await manager.stop(req.params.id))) return reply.code(404).send({ error: 'no such replication' });
    return reply.code(204).send();
  });
}

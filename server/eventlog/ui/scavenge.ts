import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

/** What the Server view shows of scavenging: the one under way, and how the last one ended. */
export interface UiScavengeStatus {
  running: {
    scavengeId: string;
    startedAt: number;
    /** How far it has got, when this server runs it (null for one `$scavenges` shows but no longer runs). */
    progress: { percent: number; streamsDone: number; streamsTotal: number; eventsRemoved: number } | null;
  } | null;
  last: {
    scavengeId: string;
    result: string;
    error: string;
    eventsRemoved: number;
    timeTakenMs: number;
    completedAt: number;
  } | null;
}

const RECORDS_READ = 20;

/**
 * Starting a scavenge from the UI, and its state as `$scavenges` records it ($scavengeStarted, then
 * $scavengeCompleted with the result, events removed and time taken), as EventStoreDB's UI shows it.
 */
export function scavengeRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };

  const status = (req: FastifyRequest): UiScavengeStatus => {
    const read = deps.store.readStreamBackward('$scavenges', -1, RECORDS_READ, false, callerOf(req, deps));
    if (read.result !== 'Success') return { running: null, last: null };
    const completed = new Map<string, UiScavengeStatus['last']>();
    let running: UiScavengeStatus['running'] = null;
    for (const e of read.events) {
      const event = e.event;
      if (!event) continue;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(Buffer.from(event.data).toString('utf8')) as Record<string, unknown>;
      } catch {
        continue;
      }
      const id = String(data.scavengeId ?? '');
      if (event.eventType === '$scavengeCompleted' && !completed.has(id))
        completed.set(id, {
          scavengeId: id,
          result: String(data.result ?? ''),
          error: String(data.error ?? ''),
          eventsRemoved: Number(data.eventsRemoved ?? 0),
          timeTakenMs: Number(data.timeTakenMs ?? 0),
          completedAt: event.created,
        });
      // Newest first: a start with no completion after it is the one under way.
      if (event.eventType === '$scavengeStarted' && !completed.has(id) && running === null)
        running = { scavengeId: id, startedAt: event.created, progress: null };
    }
    const progress = deps.store.scavengeProgress();
    if (progress && running?.scavengeId === progress.scavengeId) {
      const { percent, streamsDone, streamsTotal, eventsRemoved } = progress;
      running.progress = { percent, streamsDone, streamsTotal, eventsRemoved };
    }
    return { running, last: completed.values().next().value ?? null };
  };

  app.get('/eventlog/scavenge', auth, async (req) => status(req));

  app.post('/eventlog/scavenge', auth, async (req, reply) => {
    const started = deps.store.scavenge(callerOf(req, deps));
    if (started.result === 'Unauthorized') return reply.code(403).send({ error: 'Only $admins and $ops may scavenge' });
    return { result: started.result, scavengeId: started.scavengeId };
  });
}

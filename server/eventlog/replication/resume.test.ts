import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, LogRing } from '../../logger.ts';
import { openEventLog, type EventLog } from '../eventlog.ts';
import { localEndpoint, replicate } from './index.ts';
import { seedBulk } from './testing/bulk.ts';
import { removeTempDirs, tempDir } from './testing/serve.ts';
import type { ReplicationTarget } from './types.ts';

const logger = createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) });
const ADMIN = { name: 'admin', groups: ['$admins'] };

/** Every user event id of a store in `$all` order. */
function userEventIds(log: EventLog): string[] {
  const ids: string[] = [];
  let from = { commitPosition: 0, preparePosition: 0 };
  for (;;) {
    const page = log.store.readAllForward(from, 4096, false, ADMIN);
    for (const e of page.events) if (e.event && !e.event.eventType.startsWith('$')) ids.push(e.event.eventId);
    if (page.events.length === 0 || page.nextPosition.commitPosition <= from.commitPosition) return ids;
    from = page.nextPosition;
  }
}

/**
 * A target whose acknowledgements get lost: every `every`-th write lands and then fails (`times` times), as when
 * the connection or the target dies before the answer arrives. Its store keeps no recent ids (idempotency window of one), so
 * only the replicator's resume step stands between a retry and a duplicate.
 */
function losingAcks(
  target: ReplicationTarget,
  every: number,
  times: number,
): { target: ReplicationTarget; lost: () => number } {
  let writes = 0;
  let lost = 0;
  return {
    lost: () => lost,
    target: {
      ...target,
      async write(write) {
        await target.write(write);
        if (++writes % every === 0 && lost < times && write.streamId.startsWith('bulk-')) {
          lost++;
          throw new Error('connection closed before the answer');
        }
      },
    },
  };
}

describe('resuming after a write whose answer was lost', () => {
  const logs: EventLog[] = [];
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
    removeTempDirs();
  });

  it('finds the writes the target already has and neither repeats nor skips one', async () => {
    const sourceDir = tempDir('resume-src');
    await seedBulk(sourceDir, { events: 6000 });
    const source = await openEventLog({ dataDir: sourceDir, logger });
    const target = await openEventLog({ dataDir: tempDir('resume-dst'), logger, limits: { idempotencyWindow: 1 } });
    logs.push(source, target);
    const flaky = losingAcks(localEndpoint(target.store, 'target').target(), 97, 5);
    const summary = await replicate({
      openSource: async () => localEndpoint(source.store, 'source').source(),
      openTarget: async () => flaky.target,
      name: 'resume',
      backoff: { initialMs: 1, maxMs: 1 },
    });
    expect(flaky.lost()).toBe(5);
    expect(summary.retries).toBe(flaky.lost());
    const copied = userEventIds(target);
    expect(new Set(copied).size).toBe(copied.length);
    expect(copied).toEqual(userEventIds(source));
  }, 120_000);
});

/**
 * Test and benchmark support: many events written straight into a data directory's store (before a server
 * starts on it), spread over streams in short runs so `$all` interleaves them, with metadata, deletions and
 * tombstones along the way.
 */
import crypto from 'node:crypto';
import { ensureDirectory } from '../../../fs-util.ts';
import { openEventLog } from '../../eventlog.ts';
import { ExpectedVersion, type NewEvent } from '../../store/types.ts';
import { createLogger, LogRing } from '../../../logger.ts';

const ADMIN = { name: 'admin', groups: ['$admins'] };

function event(i: number, payloadBytes: number): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType: i % 7 === 0 ? 'Binary' : 'Happened',
    isJson: i % 7 !== 0,
    data:
      i % 7 === 0
        ? crypto.randomBytes(payloadBytes)
        : Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(payloadBytes) })),
    metadata: Buffer.from(JSON.stringify({ seq: i })),
  };
}

export interface BulkOptions {
  events: number;
  streams?: number;
  /** Events per append: 1..maxRun, so consecutive `$all` events change stream often. */
  maxRun?: number;
  payloadBytes?: number;
  /** Prefix of the stream names (separate seedings of one store). */
  prefix?: string;
}

/** Writes `events` user events into `dataDir` (creating the store), plus metadata and deletions every so often. */
export async function seedBulk(dataDir: string, options: BulkOptions): Promise<void> {
  ensureDirectory(dataDir);
  const log = await openEventLog({
    dataDir,
    logger: createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) }),
  });
  const store = log.store;
  const streams = options.streams ?? 500;
  const maxRun = options.maxRun ?? 20;
  const prefix = options.prefix ?? 'bulk';
  let written = 0;
  let appends = 0;
  const pending: Promise<unknown>[] = [];
  try {
    while (written < options.events) {
      const run = Math.min(1 + ((appends * 7919) % maxRun), options.events - written);
      const stream = `${prefix}-${(appends * 31) % streams}`;
      const events = Array.from({ length: run }, (_, k) => event(written + k, options.payloadBytes ?? 40));
      pending.push(store.appendToStream(stream, ExpectedVersion.Any, events, ADMIN));
      written += run;
      appends++;
      if (appends % 500 === 0) {
        const n = appends / 500;
        const meta = n % 3 === 0 ? { $maxCount: 5 } : n % 3 === 1 ? { $maxAge: 3600, owner: `o${n}` } : { $tb: 1 };
        pending.push(
          store.appendToStream(
            `$$${prefix}-meta-${n}`,
            ExpectedVersion.Any,
            [
              {
                eventId: crypto.randomUUID(),
                eventType: '$metadata',
                isJson: true,
                data: Buffer.from(JSON.stringify(meta)),
                metadata: new Uint8Array(0),
              },
            ],
            ADMIN,
          ),
        );
        pending.push(
          store.appendToStream(`${prefix}-meta-${n}`, ExpectedVersion.Any, [event(-n, 10), event(-n, 10)], ADMIN),
        );
        pending.push(store.appendToStream(`${prefix}-gone-${n}`, ExpectedVersion.Any, [event(-n, 10)], ADMIN));
        // Soft and hard deletes wait for the write before them (a delete of a stream not yet written fails).
        await Promise.all(pending.splice(0));
        await store.deleteStream(`${prefix}-gone-${n}`, ExpectedVersion.Any, n % 2 === 0, ADMIN);
      }
      if (pending.length >= 256) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
  } finally {
    await log.close();
  }
}

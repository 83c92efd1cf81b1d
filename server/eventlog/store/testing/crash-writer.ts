/**
 * Child process for the store's crash test: appends single events from many concurrent writers and
 * prints one line per acknowledged write ("ack <stream> <eventNumber> <commitPosition> <eventId>"),
 * until it is killed. Usage: node crash-writer.ts <dataDir>
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { openDatabase } from '../../../db/index.ts';
import { eventlogMigrations } from '../migrations.ts';
import { SqliteEventStore } from '../sqlite-store.ts';
import { silentLogger } from './store.ts';
import { ExpectedVersion } from '../types.ts';

const dir = process.argv[2];
const db = openDatabase(path.join(dir, 'eventlog.db'), { migrations: eventlogMigrations, synchronous: 'FULL' });
const store = new SqliteEventStore({ db, logger: silentLogger });
store.markReady();
process.stdout.write('ready\n');

const WRITERS = 16;
await Promise.all(
  Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = 0; ; i++) {
      const streamId = `crash-${(w + i) % 5}`;
      const eventId = crypto.randomUUID();
      const r = await store.appendToStream(
        streamId,
        ExpectedVersion.Any,
        [
          {
            eventId,
            eventType: 'crash-test',
            isJson: true,
            data: Buffer.from(JSON.stringify({ w, i })),
            metadata: new Uint8Array(0),
          },
        ],
        null,
      );
      process.stdout.write(`ack ${streamId} ${r.lastEventNumber} ${r.commitPosition} ${eventId}\n`);
    }
  }),
);

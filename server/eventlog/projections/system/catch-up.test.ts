import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../tcp/testing/client-connection.ts';
import { append, caughtUp, jsonEvent, startFixture, tempDataDir, type ProjectionsFixture } from '../testing/fixture.ts';

/**
 * The standard projections catching up over a log that already holds many events share the event loop
 * (turn-slicer.ts): a client's reads are answered while they catch up, each well before the catch-up ends.
 * They share one pass over the log too (shared-reader.ts): each event is read once for all five, and the
 * links they write are never read back. `npm run bench:projections-catchup` measures the event-loop delay
 * over 50,000 events.
 */

const EVENTS = 10_000;
/** Generous: only to fail instead of hang (measured answers take a few ms to ~150 ms on a loaded machine). */
const ANSWER_DEADLINE_MS = 2_000;

describe('standard projections catching up', () => {
  const dataDir = tempDataDir();
  let fx: ProjectionsFixture | null = null;
  let conn: any = null;

  afterAll(async () => {
    conn?.close();
    await fx?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`answers reads while linking ${EVENTS} events`, async () => {
    const filling = await startFixture(dataDir, 'none');
    for (let i = 0; i < EVENTS; i += 500)
      await append(
        filling.eventLog,
        `backlog-${(i / 500) % 20}`,
        Array.from({ length: 500 }, (_, j) => jsonEvent('Backlogged', { n: i + j, pad: 'x'.repeat(200) })),
      );
    await filling.stop();

    fx = await startFixture(dataDir, 'system');
    // Counts what the projections read of `$all` from here on (a few pages may have gone before).
    const store = fx.eventLog.store as { readAllForward: typeof fx.eventLog.store.readAllForward };
    const readAll = store.readAllForward;
    let eventsRead = 0;
    store.readAllForward = (...args) => {
      const page = readAll(...args);
      eventsRead += page.events.length;
      return page;
    };
    const es = (await import('node-eventstore-client')).default;
    conn = await connectClient(es, fx.endpoint);
    const admin = new es.UserCredentials('admin', 'changeit');
    const answers: number[] = [];
    const manager = fx.projections!;
    while (!caughtUp(manager, fx.eventLog)) {
      const started = performance.now();
      const read = await Promise.race([
        conn.readStreamEventsForward('backlog-0', 0, 1, false, admin),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`no answer within ${ANSWER_DEADLINE_MS} ms`)), ANSWER_DEADLINE_MS),
        ),
      ]);
      answers.push(performance.now() - started);
      expect((read as { events: unknown[] }).events).toHaveLength(1);
    }
    // Answers came while the links were still being written: a catch-up holding the thread to the end
    // would answer the first read only then (one answer). How many more fit depends on the machine's speed
    // (5 on a quiet one, more under load), so only "more than one" is asserted.
    expect(answers.length).toBeGreaterThan(1);
    expect(fx.eventLog.store.lastEventNumber('$ce-backlog')).toBe(EVENTS - 1);
    // One pass for the five projections, without their own links: at most each backlog event once
    // (each projection reading the log on its own read ~5 × (events + links)).
    expect(eventsRead).toBeGreaterThan(0);
    expect(eventsRead).toBeLessThanOrEqual(EVENTS);
  });
});

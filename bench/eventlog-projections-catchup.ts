/**
 * The standard projections catching up over a log that already holds BENCH_EVENTS events (50,000 by
 * default), in-process, as after an upgrade or a `--run-projections none` period:
 *
 *   node bench/eventlog-projections-catchup.ts     (or: npm run bench:projections-catchup)
 *
 * Reports the time until every projection reached the end of the log and the event loop's delay
 * meanwhile (max and p99, sampled every 5 ms by perf_hooks): what a request arriving during the catch-up
 * waits for at most beyond its own work.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  append,
  caughtUp,
  jsonEvent,
  startFixture,
  tempDataDir,
} from '../server/eventlog/projections/testing/fixture.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const BATCH = 500;

const dataDir = tempDataDir();
try {
  const filling = await startFixture(dataDir, 'none');
  for (let i = 0; i < EVENTS; i += BATCH)
    await append(
      filling.eventLog,
      `catchup-${(i / BATCH) % 100}`,
      Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, j) =>
        jsonEvent('Backlogged', { n: i + j, pad: 'x'.repeat(200) }),
      ),
    );
  await filling.stop();

  const started = performance.now();
  const fx = await startFixture(dataDir, 'system');
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  while (!caughtUp(fx.projections!, fx.eventLog)) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  await fx.stop();
  const ms = (ns: number) => Math.round(ns / 1e6);
  console.log(
    `catch-up of ${EVENTS} events by the 5 standard projections: ${seconds.toFixed(1)} s (${Math.round(EVENTS / seconds)} events/s); ` +
      `event-loop delay meanwhile max ${ms(delay.max)} ms, p99 ${ms(delay.percentile(99))} ms, mean ${ms(delay.mean)} ms`,
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

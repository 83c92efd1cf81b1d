/**
 * The standard projections catching up over a log that already holds BENCH_EVENTS events (50,000 by
 * default), in-process (startHomeport), as after an upgrade or a `--run-projections none` period:
 *
 *   node bench/eventlog-projections-catchup.ts     (or: npm run bench:projections-catchup)
 *
 * Reports the time until every projection reached the end of the log and the event loop's delay
 * meanwhile (max and p99, sampled every 5 ms by perf_hooks): what a request arriving during the catch-up
 * waits for at most beyond its own work. Then the same delay while a throwing, a looping and a
 * memory-hungry JavaScript projection run until each is Faulted.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ExpectedVersion } from '../server/eventlog/index.ts';
import { startHomeport, type Homeport } from '../server/start.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const BATCH = 500;
const ADMIN = { name: 'admin', groups: ['$admins'] };

const start = (dataDir: string, runProjections: 'none' | 'all') =>
  startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    grpcPort: null,
    runProjections,
    logToConsole: false,
    logLevel: 'warn',
    rendererDir: null,
  });

/** Every standard projection has read to the end of the log (its own writes included). */
function caughtUp(hp: Homeport): boolean {
  const head = hp.eventLog.store.lastCommitPosition();
  return (hp.projections?.list() ?? []).every(
    (p) => p.progress.position?.kind === 'position' && p.progress.position.commitPosition >= head,
  );
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-catchup-'));
try {
  const filling = await start(dataDir, 'none');
  for (let i = 0; i < EVENTS; i += BATCH) {
    const events = Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, j) => ({
      eventId: crypto.randomUUID(),
      eventType: 'Backlogged',
      isJson: true,
      data: Buffer.from(JSON.stringify({ n: i + j, pad: 'x'.repeat(200) })),
      metadata: new Uint8Array(0),
    }));
    const r = await filling.eventLog.store.appendToStream(
      `catchup-${(i / BATCH) % 100}`,
      ExpectedVersion.Any,
      events,
      ADMIN,
    );
    if (r.result !== 'Success') throw new Error(`append: ${r.result}`);
  }
  await filling.close();

  const started = performance.now();
  const hp = await start(dataDir, 'all');
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  while (!caughtUp(hp)) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const ms = (ns: number) => Math.round(ns / 1e6);
  console.log(
    `catch-up of ${EVENTS} events by the 5 standard projections: ${seconds.toFixed(1)} s (${Math.round(EVENTS / seconds)} events/s); ` +
      `event-loop delay meanwhile max ${ms(delay.max)} ms, p99 ${ms(delay.percentile(99))} ms, mean ${ms(delay.mean)} ms`,
  );

  // A throwing, a looping and a memory-hungry projection, until each is Faulted: the loop's delay meanwhile.
  const faulty = {
    throws: `fromStream('catchup-0').when({ $any: function () { throw new Error('boom'); } })`,
    loops: `fromStream('catchup-0').when({ $any: function () { for (;;) {} } })`,
    hoards: `fromStream('catchup-0').when({ $any: function () { var a = []; for (;;) a.push(new Array(100000).fill(1)); } })`,
  };
  const faultDelay = monitorEventLoopDelay({ resolution: 5 });
  faultDelay.enable();
  const faultStarted = performance.now();
  for (const [name, query] of Object.entries(faulty)) await hp.projections!.create({ name, query, mode: 'Continuous' });
  while (Object.keys(faulty).some((name) => hp.projections!.get(name).progress.status !== 'Faulted'))
    await new Promise((r) => setTimeout(r, 20));
  faultDelay.disable();
  console.log(
    `throwing, looping and memory-hungry projections all Faulted in ${((performance.now() - faultStarted) / 1000).toFixed(1)} s; ` +
      `event-loop delay meanwhile max ${ms(faultDelay.max)} ms, p99 ${ms(faultDelay.percentile(99))} ms, mean ${ms(faultDelay.mean)} ms`,
  );
  await hp.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

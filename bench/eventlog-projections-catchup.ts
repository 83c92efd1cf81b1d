/**
 * The standard projections catching up over a log that already holds BENCH_EVENTS events (50,000 by
 * default), in-process (startHomeport), as after an upgrade or a `--run-projections none` period:
 *
 *   node bench/eventlog-projections-catchup.ts     (or: npm run bench:projections-catchup)
 *
 * Reports the time until every projection reached the end of the log and the event loop's delay
 * meanwhile (max and p99, sampled every 5 ms by perf_hooks): what a request arriving during the catch-up
 * waits for at most beyond its own work. Then the same delay while a throwing, a looping and a
 * memory-hungry JavaScript projection run until each is Faulted. Beside them: the server's CPU time per
 * event (process.cpuUsage, this process is the server), the garbage collector's pauses and the load average,
 * since on a shared machine wall-clock figures are loaded, and the delay the same process sees idle
 * beforehand (what the machine's load alone costs). BENCH_CPU_PROFILE=<file> writes a V8 CPU profile of the
 * catch-up alone (open it in Chrome's DevTools).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { ExpectedVersion } from '../server/eventlog/index.ts';
import { startHomeport, type Homeport } from '../server/start.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const PROFILE = process.env.BENCH_CPU_PROFILE;
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

  const ms = (ns: number) => Math.round(ns / 1e6);
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  await new Promise((r) => setTimeout(r, 3000));
  idle.disable();
  console.log(
    `idle baseline (3 s, nothing running): event-loop delay max ${ms(idle.max)} ms, p99 ${ms(idle.percentile(99))} ms, mean ${ms(idle.mean)} ms; ` +
      `load average ${os.loadavg()[0].toFixed(1)}`,
  );
  const profiler = PROFILE ? new inspector.Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  const gcPauses: number[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauses.push(entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const hp = await start(dataDir, 'all');
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  while (!caughtUp(hp)) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  delay.disable();
  gc.disconnect();
  if (profiler && PROFILE) {
    const { profile } = await profiler.post('Profiler.stop');
    fs.writeFileSync(PROFILE, JSON.stringify(profile));
    profiler.disconnect();
  }
  console.log(
    `catch-up of ${EVENTS} events by the 5 standard projections: ${seconds.toFixed(1)} s (${Math.round(EVENTS / seconds)} events/s); ` +
      `event-loop delay meanwhile max ${ms(delay.max)} ms, p99 ${ms(delay.percentile(99))} ms, mean ${ms(delay.mean)} ms`,
  );
  console.log(
    `  server CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (${((cpu.user + cpu.system) / EVENTS).toFixed(0)} µs per event); ` +
      `GC pauses ${gcPauses.length}, total ${Math.round(gcPauses.reduce((a, b) => a + b, 0))} ms, max ${Math.round(Math.max(0, ...gcPauses))} ms; ` +
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (${os.cpus().length} cores)`,
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

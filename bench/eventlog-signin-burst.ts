/**
 * A burst of identical sign-ins: what it costs the server when many TCP clients connect at once with the same
 * credentials (the subscribers of bench/eventlog-subscribe.ts, a service restarting its pool).
 *
 *   node bench/eventlog-signin-burst.ts
 *   BENCH_CONNECTIONS=100 BENCH_ROUNDS=3 node bench/eventlog-signin-burst.ts
 *
 * Each round starts a fresh `homeport serve` (so no sign-in is cached), opens the connections, then has each send
 * IdentifyClient and a read as admin at the same moment, and reports the server's CPU seconds (its thread pool,
 * where scrypt runs, included) from the burst's start until every reply is in, and the burst's duration.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { TcpCommand, encodeMessage } from '../server/eventlog/index.ts';
import { WireClient } from './eventlog-subscribe/wire-client.ts';
import { cpuSecondsOf, startServer, stopServer } from './support.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function round(): Promise<{ cpuSeconds: number; seconds: number; load: number }> {
  const server = await startServer('homeport-bench-signin-', { args: ['--run-projections', 'none'] });
  try {
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => WireClient.connect(server.tcpPort)));
    const pid = server.child.pid!;
    const cpuBefore = cpuSecondsOf(pid);
    const started = performance.now();
    await Promise.all(
      clients.map(async (client, i) => {
        await client.request(
          TcpCommand.IdentifyClient,
          encodeMessage('IdentifyClient', { version: 1, connectionName: `bench-signin-${i}` }),
        );
        const reply = await client.request(
          TcpCommand.ReadStreamEventsForward,
          encodeMessage('ReadStreamEvents', {
            eventStreamId: 'signin-burst',
            fromEventNumber: 0,
            maxCount: 1,
            resolveLinkTos: false,
            requireLeader: false,
          }),
        );
        if (reply.command !== TcpCommand.ReadStreamEventsForwardCompleted)
          throw new Error(`read failed with command ${reply.command}`);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpuSecondsOf(pid) - cpuBefore;
    for (const c of clients) c.close();
    return { cpuSeconds, seconds, load: os.loadavg()[0] };
  } finally {
    await stopServer(server);
  }
}

async function main(): Promise<void> {
  console.log(
    `sign-in burst: ${CONNECTIONS} connections as admin at once, ${os.cpus().length} cores, ${process.version}`,
  );
  for (let r = 0; r < ROUNDS; r++) {
    const { cpuSeconds, seconds, load } = await round();
    console.log(
      `round ${r + 1}: server CPU ${cpuSeconds.toFixed(2)} s (${((cpuSeconds * 1e3) / (2 * CONNECTIONS)).toFixed(1)} ms per sign-in), burst ${seconds.toFixed(2)} s, load ${load.toFixed(1)}`,
    );
  }
}

await main();

/**
 * The gRPC `$all` fan-out alone, with its floor in the same run: 100 @kurrent/kurrentdb-client subscribers on one
 * `homeport serve`, then the same 100 on a bare grpc-js server that sends one pre-encoded event to every
 * subscription per event appended (the ack server of bench/eventlog-grpc.ts). Prints deliveries/s and each
 * server process's CPU per delivery, with the load average. Cleartext gRPC on both, so the two compare.
 *
 *   npm run build:server && node bench/eventlog-grpc-fanout.ts
 *   BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/p' node bench/eventlog-grpc-fanout.ts   (profile the server)
 *   BENCH_ROUNDS=3 …   (alternate server and floor this many times)
 */
import os from 'node:os';
import { END, KurrentDBClient } from '@kurrent/kurrentdb-client';
import { FAN_STREAM, startAckServer } from './eventlog-grpc/ack-server.ts';
import { type CpuClock, fanOut, grpcBatch, type Measured } from './eventlog-grpc/scenarios.ts';
import { startServer, stopServer } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function grpcFanOut(url: string, cpu: CpuClock): Promise<Measured> {
  const subscriber = KurrentDBClient.connectionString(url);
  const writer = KurrentDBClient.connectionString(url);
  try {
    return await fanOut(
      FAN_STREAM,
      async (onEvent, _i, onDropped) => {
        const sub = subscriber.subscribeToAll({ fromPosition: END });
        await new Promise<void>((r) => sub.once('caughtUp', () => r()));
        sub.on('data', (e) => onEvent(e.event?.streamId ?? '', e.event?.created.getTime() ?? 0));
        sub.on('error', (err) => onDropped(err.message));
        return () => sub.unsubscribe();
      },
      async (batch) => {
        await writer.appendToStream(FAN_STREAM, grpcBatch(batch));
      },
      cpu,
    );
  } finally {
    await subscriber.dispose();
    await writer.dispose();
  }
}

const load = () => os.loadavg()[0].toFixed(1);
const line = (what: string, m: Measured) =>
  `${what.padEnd(22)} ${Math.round(m.rate).toLocaleString('en-US').padStart(9)} deliveries/s  ${m.cpu.toFixed(1).padStart(6)} µs CPU/delivery  load ${load()}`;

async function main(): Promise<void> {
  console.log(`gRPC $all fan-out to 100 subscribers, 2,000 events: ${os.cpus().length} cores, node ${process.version}`);
  const ack = await startAckServer();
  const server = await startServer('homeport-bench-grpc-fanout-', {
    args: ['--grpc-port', '0', '--grpc-insecure'],
    nodeFlags: (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean),
  });
  try {
    for (let round = 0; round < ROUNDS; round++) {
      console.log(line('homeport serve', await grpcFanOut(server.grpc!.connectionString, () => server.cpuSeconds())));
      console.log(line('floor: bare grpc-js', await grpcFanOut(ack.url, ack.cpu)));
    }
  } finally {
    await stopServer(server);
    ack.child.kill('SIGTERM');
  }
}

await main();

/**
 * Event-log subscription throughput and delivery latency through the real TCP protocol.
 *
 *   node bench/eventlog-subscribe.ts            (or: npm run bench:subscribe)
 *   BENCH_SECONDS=10 BENCH_SUBSCRIBERS=100 BENCH_RATE=5000 BENCH_RUNS=5 node bench/eventlog-subscribe.ts
 *   BENCH_SERVER_FLAGS=--cpu-prof node bench/eventlog-subscribe.ts   (extra node flags for the server)
 *
 * `homeport serve` runs as a separate process. Scenarios:
 *
 * 1. Fan-out: 100 volatile subscribers on `$all` (one TCP connection each) while one writer appends
 *    single events at a paced 5,000 events/s (pipelined WriteEvents over the protocol). Reports events/s
 *    delivered over all subscribers and the delivery latency (write sent → event received). Every
 *    subscriber counts every frame; latency is taken from every event on a sample of the subscribers
 *    (decoding 500,000 protobuf messages a second would measure this process, not the server). The
 *    server's CPU time per delivered event is printed too: it changes little with the machine's load. Beside
 *    each run, its limits, measured in the same invocation (eventlog-subscribe/floor.ts): the bare fan-out loop,
 *    the same server at one subscriber (the appends' share), a bare better-sqlite3 loop in the run's commit
 *    shape, and the composite floor derived from them.
 * 2. Competing consumers: a stream pre-filled with events, one persistent group (RoundRobin), 4
 *    consumers with an in-flight window of 500 that acknowledge what they received once per socket read
 *    (several ids per Ack, as the protocol allows). Reports acked events/s. The same with
 *    node-eventstore-client's own persistent subscription (auto-ack, one Ack per event) for comparison.
 */
import os from 'node:os';
import { ackFloor, measureRun, printRuns, type RunFigures } from './eventlog-subscribe/floor.ts';
import {
  CONSUMERS,
  GROUP_EVENTS,
  groupNodeClientConsumers,
  groupWireConsumers,
} from './eventlog-subscribe/persistent-group.ts';
import { GRPC_STATS_ARGS, serverCommitCounter } from './eventlog-append/server-commits.ts';
import { fmt } from './eventlog-subscribe/format.ts';
import { startServer, stopServer } from './support.ts';

/** Fan-out runs on the same server, each with its bare loops beside it: every figure is printed per run. */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

async function main(): Promise<void> {
  console.log(
    `event-log subscription benchmark: ${os.cpus().length} cores, node ${process.version}, load ${fmt(os.loadavg()[0], 1)}\n`,
  );
  // The standard projections' links ($ce-, $et-, …: about two per event) reach `$all` subscribers too, which
  // made "delivered" three times "written × subscribers": they are off unless BENCH_RUN_PROJECTIONS says.
  const server = await startServer('homeport-bench-subs-', {
    nodeFlags: (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean),
    args: ['--run-projections', process.env.BENCH_RUN_PROJECTIONS ?? 'none', ...GRPC_STATS_ARGS],
  });
  const counter = serverCommitCounter(server.grpc!.port);
  try {
    await counter.commits(); // the gRPC connection's setup, outside every measured window
    // Several runs on the same server: one run's p99 moves with whatever else the machine is doing.
    const ackMicros = await ackFloor();
    const runs: RunFigures[] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await measureRun(server, counter.commits));
    printRuns(runs, ackMicros);

    const g = await groupWireConsumers(server.tcpPort);
    const rate = g.acked / g.seconds;
    console.log(
      `2. one persistent group, ${CONSUMERS} consumers (window 500, batched acks), ${fmt(GROUP_EVENTS)} events pre-written`,
    );
    console.log(
      `   acked: ${fmt(g.acked)} in ${fmt(g.seconds, 2)} s = ${fmt(rate)} events/s   target > 20,000/s -> ${rate > 20_000 ? 'met' : 'NOT met'}`,
    );

    const necEvents = Math.min(GROUP_EVENTS, 20_000);
    const n = await groupNodeClientConsumers(server.tcpPort, necEvents);
    console.log(
      `   same with node-eventstore-client (auto-ack, one Ack per event), ${fmt(necEvents)} events: ${fmt(n.acked / n.seconds)} events/s`,
    );
  } finally {
    counter.close();
    await stopServer(server);
  }
}

await main();

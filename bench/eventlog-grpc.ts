/**
 * Event-log throughput through the KurrentDB gRPC protocol (@kurrent/kurrentdb-client) beside the TCP
 * protocol (node-eventstore-client 23.10.1), against one `homeport serve` in a separate process, in the
 * same run: appends single and batched, reads (stream forward/backward, $all forward), and `$all` fan-out
 * to 100 subscribers. The gRPC client's own limit is measured against an in-memory server in another
 * process that answers Append and Read without a store (`--ack-server`).
 *
 *   node bench/eventlog-grpc.ts               BENCH_SECONDS=5 node bench/eventlog-grpc.ts
 *   BENCH_GRPC_INSECURE=1 …                    (cleartext gRPC; TLS by default, as KurrentDB)
 */
import os from 'node:os';
import { KurrentDBClient, START, BACKWARDS, END } from '@kurrent/kurrentdb-client';
import { runAckServer, startAckServer } from './eventlog-grpc/ack-server.ts';
import {
  fanOut,
  grpcAppends,
  grpcBatch,
  grpcRead,
  SECONDS,
  tcpAppends,
  tcpBatch,
  type TcpConnection,
  tcpRead,
  tcpReadAll,
  tcpReadStream,
} from './eventlog-grpc/scenarios.ts';
import { ackLimit, both, printTable, type Row } from './eventlog-grpc/table.ts';
import { connectClient, es, startServer, stopServer } from './support.ts';

const INSECURE = process.env.BENCH_GRPC_INSECURE === '1';

function withAdmin(url: string): string {
  return INSECURE ? url : url.replace('kurrentdb://', 'kurrentdb://admin:changeit@');
}

async function main(): Promise<void> {
  console.log(
    `event-log gRPC vs TCP: ${os.cpus().length} cores, node ${process.version}, ${SECONDS}s per append scenario, gRPC ${INSECURE ? 'cleartext' : 'TLS'}\n`,
  );
  const ack = await startAckServer();
  const server = await startServer('homeport-bench-grpc-', {
    args: ['--grpc-port', '0', ...(INSECURE ? ['--grpc-insecure'] : [])],
  });
  const serverCpu = () => server.cpuSeconds();
  const url = withAdmin(server.grpc!.connectionString);
  const rows: Row[] = [];
  try {
    for (const [clients, batch, inFlight] of [
      [1, 1, 64],
      [10, 1, 16],
      [1, 100, 8],
      [10, 100, 4],
    ] as const) {
      const tcp = await tcpAppends(server.tcpPort, clients, batch, inFlight, serverCpu);
      const viaGrpc = await grpcAppends(url, clients, batch, inFlight, serverCpu);
      const limit = await grpcAppends(ack.url, clients, batch, inFlight, ack.cpu);
      rows.push({
        scenario: `append ${clients} client × ${inFlight} in flight, ${batch}-event batches`,
        tcp: tcp.rate,
        grpc: viaGrpc.rate,
        tcpCpu: tcp.cpu,
        grpcCpu: viaGrpc.cpu,
        clientLimit: limit.rate,
        bareCpu: limit.cpu,
        p50: viaGrpc.p50,
        p99: viaGrpc.p99,
      });
    }

    const stream = 'bench-read';
    const seed = KurrentDBClient.connectionString(url);
    for (let n = 0; n < 50_000; n += 500) await seed.appendToStream(stream, grpcBatch(500));
    console.error('appends done');
    rows.push({
      scenario: 'read stream forward, 4 readers, whole stream (50,000)',
      ...both(
        await tcpRead(server.tcpPort, (c) => tcpReadStream(c, stream, true), serverCpu),
        await grpcRead(url, (c) => c.readStream(stream), serverCpu),
      ),
      ...ackLimit(await grpcRead(ack.url, (c) => c.readStream(stream, { maxCount: 50_000 }), ack.cpu)),
    });
    rows.push({
      scenario: 'read stream backward, 4 readers, whole stream',
      ...both(
        await tcpRead(server.tcpPort, (c) => tcpReadStream(c, stream, false), serverCpu),
        await grpcRead(url, (c) => c.readStream(stream, { direction: BACKWARDS, fromRevision: END }), serverCpu),
      ),
    });
    rows.push({
      scenario: 'read $all forward, 4 readers, 100,000 events',
      ...both(
        await tcpRead(server.tcpPort, (c) => tcpReadAll(c, 100_000), serverCpu),
        await grpcRead(url, (c) => c.readAll({ fromPosition: START, maxCount: 100_000 }), serverCpu),
      ),
    });

    const tcpWriter = await connectClient(server.tcpPort, 'fan-writer', {
      maxConcurrentItems: 5000,
      maxQueueSize: 50_000,
    });
    // One connection per subscriber, as bench/eventlog-subscribe: 100 subscriptions on one TCP connection put
    // 10,000 frames in its send queue for each 100-event write, past the backlog bound, and the server drops them
    // (SubscriptionDropped, as EventStoreDB's queue threshold does), which the last runs counted as slowness.
    const tcpSubscribers: TcpConnection[] = [];
    const tcpFan = await fanOut(
      'fan-tcp',
      async (onEvent, i, onDropped) => {
        const connection = await connectClient(server.tcpPort, `fan-sub-${i}`, {
          maxConcurrentItems: 5000,
          maxQueueSize: 50_000,
        });
        tcpSubscribers.push(connection);
        const sub = await connection.subscribeToAll(
          false,
          (_s: unknown, e: { originalStreamId: string; event: { createdEpoch: number } }) =>
            onEvent(e.originalStreamId, e.event.createdEpoch),
          (_s: unknown, reason: string) => {
            if (reason !== 'userInitiated') onDropped(String(reason));
          },
        );
        return () => sub.unsubscribe();
      },
      (batch) => tcpWriter.appendToStream('fan-tcp', es.expectedVersion.any, tcpBatch(batch)),
      serverCpu,
    );
    tcpWriter.close();
    for (const c of tcpSubscribers) c.close();
    const grpcSubscriber = KurrentDBClient.connectionString(url);
    const grpcFan = await fanOut(
      'fan-grpc',
      async (onEvent, _i, onDropped) => {
        const sub = grpcSubscriber.subscribeToAll({ fromPosition: END });
        await new Promise<void>((r) => sub.once('caughtUp', () => r()));
        sub.on('data', (e) => onEvent(e.event?.streamId ?? '', e.event?.created.getTime() ?? 0));
        sub.on('error', (err) => onDropped(err.message));
        return () => sub.unsubscribe();
      },
      async (batch) => {
        await seed.appendToStream('fan-grpc', grpcBatch(batch));
      },
      serverCpu,
    );
    rows.push({ scenario: '$all fan-out to 100 subscribers (deliveries/s)', ...both(tcpFan, grpcFan) });
    await grpcSubscriber.dispose();
    await seed.dispose();
  } finally {
    await stopServer(server);
    ack.child.kill('SIGTERM');
  }
  printTable(rows);
}

if (process.argv.includes('--ack-server')) runAckServer();
else
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );

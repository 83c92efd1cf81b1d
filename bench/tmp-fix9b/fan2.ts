import { connectClient, es, startServer, stopServer } from '../support.ts';
import { fanOut, tcpBatch } from '../eventlog-grpc/scenarios.ts';
const server = await startServer('fix9b-');
try {
  for (let run = 0; run < Number(process.env.RUNS ?? 2); run++) {
    const writer = await connectClient(server.tcpPort, 'w', { maxConcurrentItems: 5000, maxQueueSize: 50_000 });
    const subs: any[] = [];
    const r = await fanOut(`fan-tcp-${run}`, async (onEvent, i, onDropped) => {
      const c = await connectClient(server.tcpPort, `s${i}`, { maxConcurrentItems: 5000, maxQueueSize: 50_000 });
      subs.push(c);
      const sub = await c.subscribeToAll(false, (_s: unknown, e: any) => onEvent(e.originalStreamId, e.event.createdEpoch), (_s: unknown, reason: string) => { if (reason !== 'userInitiated') onDropped(String(reason)); });
      return () => sub.unsubscribe();
    }, (n) => writer.appendToStream(`fan-tcp-${run}`, es.expectedVersion.any, tcpBatch(n)), () => server.cpuSeconds());
    console.error(`run ${run}: ${Math.round(r.rate)} deliveries/s`);
    writer.close();
    for (const c of subs) c.close();
  }
} finally { await stopServer(server); }
process.exit(0);

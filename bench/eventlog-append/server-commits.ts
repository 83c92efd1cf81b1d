import * as grpc from '@grpc/grpc-js';
import { serviceDefinition } from '../../server/eventlog/index.ts';

/**
 * The server's own count of its SQLite commits (one per group commit), read from its Monitoring.Stats
 * (`es-writer-commits`) over its gRPC port in cleartext (`serve --grpc-port 0 --grpc-insecure`, loopback): the
 * commit clock in the events' rows cannot tell two commits of the same millisecond apart.
 */
export const GRPC_STATS_ARGS = ['--grpc-port', '0', '--grpc-insecure'] as const;

export function serverCommitCounter(port: number): { commits(): Promise<number>; close(): void } {
  const Monitoring = grpc.makeGenericClientConstructor(
    serviceDefinition('event_store.client.monitoring.Monitoring'),
    'Monitoring',
  );
  const client = new Monitoring(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const commits = () =>
    new Promise<number>((resolve, reject) => {
      const call = (client as unknown as { Stats(request: object): grpc.ClientReadableStream<unknown> }).Stats({});
      call.on('data', (message: { stats: Record<string, string> }) => {
        const count = Number(message.stats['es-writer-commits']);
        if (Number.isFinite(count)) resolve(count);
        else reject(new Error('the server reports no es-writer-commits'));
      });
      call.on('error', reject);
    });
  return { commits, close: () => client.close() };
}

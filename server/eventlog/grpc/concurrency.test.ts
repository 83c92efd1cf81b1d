import * as grpc from '@grpc/grpc-js';
import { jsonEvent } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer, waitFor } from './testing/homeport.ts';
import { rawClient, subscribeRaw } from './testing/raw.ts';

/** Many calls on one connection: a bounded number served, a clear status for the rest, others unharmed. */
const shared = useGrpcTestServer();

describe('streaming calls on one connection', () => {
  it('serves up to the bound and refuses the rest with RESOURCE_EXHAUSTED', async () => {
    const limit = shared.server.homeport.grpc!.listener.limits.maxStreamingCallsPerConnection;
    const total = limit + 200;
    const client = rawClient(shared.server, 'event_store.client.streams.Streams');
    let confirmed = 0;
    const refused: grpc.ServiceError[] = [];
    const calls: grpc.ClientReadableStream<{ content: string }>[] = [];
    for (let i = 0; i < total; i++) {
      const call = subscribeRaw<{ content: string }>(client, 'crowded');

      call.on('data', (m) => {
        if (m.content === 'confirmation') confirmed++;
      });
      call.on('error', (err: grpc.ServiceError) => {
        if (err.code !== grpc.status.CANCELLED) refused.push(err);
      });
      calls.push(call);
    }
    await waitFor(() => confirmed + refused.length === total, `${total} answers (${confirmed} + ${refused.length})`);
    expect(confirmed).toBe(limit);
    expect(refused).toHaveLength(200);
    expect(refused.every((e) => e.code === grpc.status.RESOURCE_EXHAUSTED)).toBe(true);
    const live = () => shared.server.homeport.subscriptions.listVolatile().filter((s) => s.streamId === 'crowded');
    expect(live()).toHaveLength(limit);

    // another client is unharmed, and the served subscriptions still deliver
    const other = shared.server.client();
    await other.appendToStream('crowded', jsonEvent({ type: 'x', data: {} }));
    for (const call of calls) call.cancel();
    await waitFor(() => live().length === 0, 'every subscription to be released');
    client.close();
  });
});

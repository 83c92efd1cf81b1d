import { jsonEvent } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { startGrpcTestServer, waitFor } from './testing/homeport.ts';

describe('shutting down with appends in flight', () => {
  it('answers every append the store had taken before closing, and those appends are on disk', async () => {
    const server = await startGrpcTestServer();
    const { dataDir } = server;
    const store = server.homeport.eventLog.store;
    // Hold the store's writes at a gate, so the shutdown surely starts while they are in flight.
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const append = store.appendToStream.bind(store);
    store.appendToStream = async (...args) => {
      await gate;
      return append(...args);
    };
    const client = server.client();
    const streams = Array.from({ length: 10 }, (_, i) => `drain-${i}`);
    const appends = streams.map((s) => client.appendToStream(s, jsonEvent({ type: 't', data: {} })));
    await waitFor(() => server.homeport.grpc!.writesInFlight() === streams.length, 'ten appends at the store');
    const closed = server.homeport.close();
    open();
    const outcomes = await Promise.allSettled(appends);
    await closed;
    expect(outcomes.map((o) => o.status)).toEqual(streams.map(() => 'fulfilled'));
    await client.dispose().catch(() => {});

    const again = await startGrpcTestServer({ dataDir });
    try {
      for (const stream of streams) expect(again.homeport.eventLog.store.lastEventNumber(stream)).toBe(0);
    } finally {
      await again.close();
    }
  });
});

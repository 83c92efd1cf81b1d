import type * as grpc from '@grpc/grpc-js';
import { binaryEvent } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer, waitFor } from './testing/homeport.ts';
import { rawClient, subscribeRaw } from './testing/raw.ts';

/** A client that stops reading must not make the server queue without bound, nor lose or repeat events. */
const shared = useGrpcTestServer();

type ReadResp = { content: string; event?: { event: { stream_revision: string } } };

describe('a subscriber that stops reading', () => {
  it('is moved back to catch-up instead of being queued for, then gets every event once, in order', async () => {
    const client = rawClient(shared.server, 'event_store.client.streams.Streams');
    const call = subscribeRaw<ReadResp>(client, 'slow');

    const revisions: number[] = [];
    let caughtUp = 0;
    call.on('data', (m: ReadResp) => {
      if (m.content === 'caught_up') caughtUp++;
      if (m.content === 'event') revisions.push(Number(m.event!.event.stream_revision ?? 0)); // proto3 leaves 0 out
    });
    const failed = new Promise((_, reject) => call.on('error', reject));
    failed.catch(() => {});
    await waitFor(() => caughtUp === 1, 'caught_up');
    const liveSubscriptions = () =>
      shared.server.homeport.subscriptions.listVolatile().filter((s) => s.streamId === 'slow').length;
    expect(liveSubscriptions()).toBe(1);
    call.pause();

    const total = 6000;
    const payload = Buffer.alloc(1024, 7);
    for (let i = 0; i < total; i += 200) {
      const batch = Array.from({ length: 200 }, () => binaryEvent({ type: 'slow', data: payload }));
      await shared.client.appendToStream('slow', batch);
    }
    // past its live queue bound the subscriber leaves the live feed (no unbounded queue on the server)
    await waitFor(() => liveSubscriptions() === 0, 'the live subscription to be dropped for catch-up');
    call.resume();
    await waitFor(() => revisions.length >= total, `${total} events (got ${revisions.length})`);
    expect(revisions).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(caughtUp).toBe(1);
    // and it goes live again
    await waitFor(() => liveSubscriptions() === 1, 'the subscription to be live again');
    await shared.client.appendToStream('slow', [binaryEvent({ type: 'slow', data: payload })]);
    await waitFor(() => revisions.length === total + 1, 'the live event after catching up again');
    call.cancel();
    client.close();
  });
});

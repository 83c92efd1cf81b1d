import { describe, expect, it } from 'vitest';
import type { StreamPage } from './events.ts';
import { event, useEventLogUiApi } from './testing/ui-api.ts';

/** The event-log UI API's persistent subscription groups and their parked messages. */

const ui = useEventLogUiApi();
const { call, append } = ui;

describe('event-log UI API: persistent groups', () => {
  it('creates, reads, updates and deletes a persistent group, and pages its parked messages', async () => {
    await append('pg-orders', [event('Placed', { n: 1 })]);
    const created = await call<{ group: { stream: string; group: string; settings: { maxRetryCount: number } } }>(
      '/eventlog/persistent-groups/pg-orders/billing',
      {
        method: 'POST',
        body: { startFrom: 0, maxRetryCount: 3, consumerStrategy: 'RoundRobin' },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.group).toMatchObject({ stream: 'pg-orders', group: 'billing', settings: { maxRetryCount: 3 } });
    expect((await call('/eventlog/persistent-groups/pg-orders/billing', { method: 'POST', body: {} })).status).toBe(
      409,
    );
    const invalid = await call<{ error: string }>('/eventlog/persistent-groups/pg-orders/other', {
      method: 'POST',
      body: { readBatchSize: 50, historyBufferSize: 10 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toContain('Read batch size');
    expect(
      (
        await call('/eventlog/persistent-groups/pg-orders/other', {
          method: 'POST',
          body: { consumerStrategy: 'Random' },
        })
      ).status,
    ).toBe(400);

    const list = await call<{ groups: { stream: string; group: string; lastKnownEventNumber: number | null }[] }>(
      '/eventlog/persistent-groups',
    );
    expect(list.body.groups).toContainEqual(
      expect.objectContaining({ stream: 'pg-orders', group: 'billing', lastKnownEventNumber: 0 }),
    );

    const updated = await call<{ group: { settings: { maxRetryCount: number; messageTimeoutMs: number } } }>(
      '/eventlog/persistent-groups/pg-orders/billing',
      {
        method: 'PUT',
        body: { startFrom: 0, maxRetryCount: 7, messageTimeoutMs: 5000 },
      },
    );
    expect(updated.status).toBe(200);
    expect(updated.body.group.settings).toMatchObject({ maxRetryCount: 7, messageTimeoutMs: 5000 });

    const parked = await call<StreamPage>('/eventlog/persistent-groups/pg-orders/billing/parked');
    expect(parked.status).toBe(200);
    expect(parked.body.events).toEqual([]);
    const replay = await call<{ replayed: number }>('/eventlog/persistent-groups/pg-orders/billing/parked/replay', {
      method: 'POST',
      body: {},
    });
    expect(replay.body.replayed).toBe(0);

    expect((await call('/eventlog/persistent-groups/pg-orders/billing', { method: 'DELETE' })).status).toBe(200);
    expect((await call('/eventlog/persistent-groups/pg-orders/billing')).status).toBe(404);
    expect((await call('/eventlog/persistent-groups/pg-orders/billing', { method: 'DELETE' })).status).toBe(404);
    expect(
      (await call('/eventlog/persistent-groups/pg-orders/billing/parked/replay', { method: 'POST', body: {} })).status,
    ).toBe(404);
  });
});

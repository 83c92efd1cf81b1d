import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { ExpectedVersion } from '../index.ts';
import { UI_API_PREFIX } from '../../http/ui-api.ts';
import { useTestHomeport } from '../../http/testing/homeport.ts';
import type { UiProjectionConfig, UiProjectionDetail, UiProjectionState, UiProjectionSummary } from './projections.ts';

/** The Projections page's UI API: list, detail, state per partition, create, commands, update, config, delete. */

const server = useTestHomeport();

const call = async (method: string, path: string, body?: unknown, token: string | null = server.hp.uiToken) => {
  const res = await fetch(`${server.hp.httpUrl}${UI_API_PREFIX}/eventlog/projections${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const QUERY = `fromCategory('till').foreachStream().when({
  $init: function () { return { sold: 0 }; },
  Sold: function (s, e) { s.sold += e.body.qty; },
}).outputState()`;

it('lists the standard projections, creates one, shows its state per partition, runs the commands, deletes it', async () => {
  expect((await call('GET', '', undefined, null)).status).toBe(401);
  const list = (await call('GET', '')).body as { projections: UiProjectionSummary[]; mode: string };
  expect(list.mode).toBe('all');
  expect(list.projections.find((p) => p.name === '$by_category')).toMatchObject({
    mode: 'Continuous',
    status: 'Running',
    system: true,
    enabled: true,
  });

  const created = await call('POST', '', { name: 'tills', mode: 'Continuous', query: QUERY });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: 'tills', status: 'Running', system: false });
  expect((await call('POST', '', { name: 'tills', mode: 'Continuous', query: QUERY })).status).toBe(409);
  expect((await call('POST', '', { name: 'x', mode: 'Sometimes', query: QUERY })).status).toBe(400);

  const { store } = server.hp.eventLog;
  const sold = (qty: number) => ({
    eventId: crypto.randomUUID(),
    eventType: 'Sold',
    isJson: true,
    data: Buffer.from(JSON.stringify({ qty })),
    metadata: new Uint8Array(0),
  });
  const admin = { name: 'admin', groups: ['$admins'] };
  await store.appendToStream('till-1', ExpectedVersion.Any, [sold(2), sold(3)], admin);
  await store.appendToStream('till-2', ExpectedVersion.Any, [sold(7)], admin);

  const state = await until('the state of till-1', async () => {
    const s = (await call('GET', '/tills/state?partition=till-1')).body as UiProjectionState;
    return s.state === '{"sold":5}' ? s : undefined;
  });
  expect(state).toEqual({ partition: 'till-1', state: '{"sold":5}', result: '{"sold":5}' });
  const detail = await until('both partitions', async () => {
    const d = (await call('GET', '/tills')).body as UiProjectionDetail;
    return d.partitions.includes('till-2') ? d : undefined;
  });
  expect(detail).toMatchObject({
    query: QUERY,
    handlerType: 'JS',
    emitEnabled: false,
    resultStream: '$projections-tills-result',
  });
  expect(detail.partitions).toEqual(['till-1', 'till-2']);
  expect(detail.eventsProcessedAfterRestart).toBeGreaterThanOrEqual(3);

  // A running projection cannot be deleted; disabled, it can.
  expect((await call('DELETE', '/tills', {})).status).toBe(409);
  expect((await call('POST', '/tills/command/disable')).status).toBe(200);
  expect(((await call('GET', '/tills')).body as UiProjectionDetail).status).toBe('Stopped');
  expect(
    (await call('PUT', '/tills/query', { query: QUERY.replace('s.sold += e.body.qty', 's.sold += 10 * e.body.qty') }))
      .status,
  ).toBe(200);
  expect((await call('POST', '/tills/command/reset')).status).toBe(200);
  expect((await call('POST', '/tills/command/enable')).status).toBe(200);
  await until('the new query over every event', async () => {
    const s = (await call('GET', '/tills/state?partition=till-2')).body as UiProjectionState;
    return s.state === '{"sold":70}' ? s : undefined;
  });
  expect((await call('POST', '/tills/command/explode')).status).toBe(404);
  expect((await call('POST', '/tills/command/abort')).status).toBe(200);
  expect((await call('DELETE', '/$by_category', {})).status).toBe(409);
  expect((await call('DELETE', '/tills', { deleteCheckpointStream: true })).status).toBe(200);
  expect((await call('GET', '/tills')).status).toBe(404);
});

it("reads a projection's configuration and saves a new one only while it is stopped", async () => {
  expect((await call('POST', '', { name: 'tuned', mode: 'Continuous', query: QUERY })).status).toBe(201);
  expect((await call('GET', '/tuned/config', undefined, null)).status).toBe(401);
  const defaults = (await call('GET', '/tuned/config')).body as UiProjectionConfig;
  expect(defaults).toMatchObject({ emitEnabled: false, trackEmittedStreams: false, projectionExecutionTimeout: 250 });

  const change = {
    emitEnabled: true,
    trackEmittedStreams: true,
    checkpointHandledThreshold: 100,
    projectionExecutionTimeout: 500,
  };
  expect((await call('PUT', '/tuned/config', change)).status).toBe(409); // running
  expect((await call('POST', '/tuned/command/disable')).status).toBe(200);
  expect((await call('PUT', '/tuned/config', { projectionExecutionTimeout: 0 })).status).toBe(400);
  expect((await call('PUT', '/tuned/config', { checkpointAfterMs: -1 })).status).toBe(400);
  expect((await call('PUT', '/tuned/config', { emitEnabled: 'yes' })).status).toBe(400);
  expect((await call('GET', '/tuned/config')).body).toEqual(defaults); // nothing of the refused ones kept

  const saved = await call('PUT', '/tuned/config', change);
  expect(saved.status).toBe(200);
  expect(saved.body).toEqual({ ...defaults, ...change });
  expect((await call('GET', '/tuned')).body).toMatchObject({ emitEnabled: true, trackEmittedStreams: true });
  expect((await call('GET', '/nothing-here/config')).status).toBe(404);
  expect((await call('DELETE', '/tuned', {})).status).toBe(200);
});

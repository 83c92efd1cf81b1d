import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Homeport } from '../../../start.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../../grpc/testing/homeport.ts';
import { connectClient, jsonEvent } from '../../tcp/testing/client-connection.ts';
import { waitFor } from '../testing/fixture.ts';

/**
 * The HTTP projections API on the gRPC port, driven by node-eventstore-client's ProjectionsManager
 * (https with Homeport's self-signed certificate, Basic credentials) as an application would.
 */

// The client's CommonJS export is untyped here.
type Es = any;
const quietLog = { debug() {}, info() {}, error() {} };

describe('HTTP projections API through ProjectionsManager', () => {
  let server: GrpcTestServer;
  let hp: Homeport;
  let es: Es;
  let pm: Es;
  let admin: Es;
  let conn: Es;
  let base: string;

  beforeAll(async () => {
    es = (await import('node-eventstore-client')).default;
    server = await startGrpcTestServer({ runProjections: 'all' });
    hp = server.homeport;
    base = `https://127.0.0.1:${server.port}`;
    pm = new es.ProjectionsManager(quietLog, base, 10_000, false);
    admin = new es.UserCredentials('admin', 'changeit');
    conn = await connectClient(es, `tcp://127.0.0.1:${hp.tcpPort}`, { defaultUserCredentials: admin });
  });

  afterAll(async () => {
    if (conn) {
      const closed = new Promise<void>((resolve) => conn.once('closed', () => resolve()));
      conn.close();
      await closed;
    }
    await server?.close();
  });

  const status = async (name: string) => JSON.parse(await pm.getStatus(name, admin));

  it('creates, lists, reads state/result/statistics/query, updates, and runs the commands', async () => {
    await conn.appendToStream('shop-1', es.expectedVersion.any, [
      jsonEvent(es, 'Sold', { sku: 'a', qty: 2 }),
      jsonEvent(es, 'Sold', { sku: 'b', qty: 1 }),
    ]);
    const query = `fromCategory('shop').partitionBy(function (e) { return e.body.sku; }).when({
      $init: function () { return { qty: 0 }; },
      Sold: function (s, e) { s.qty += e.body.qty; },
    }).outputState()`;
    await pm.createContinuous('sales', query, false, admin);

    const all = await pm.listAll(admin);
    expect(all.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining([
        '$by_category',
        '$by_event_type',
        '$streams',
        '$stream_by_category',
        '$by_correlation_id',
        'sales',
      ]),
    );
    expect((await pm.listContinuous(admin)).length).toBe(all.length);
    const sales = await status('sales');
    expect(sales).toMatchObject({ name: 'sales', effectiveName: 'sales', mode: 'Continuous', status: 'Running' });
    expect(sales.statusUrl).toBe(`${base}/projection/sales`);
    expect(Object.keys(sales)).toEqual(
      expect.arrayContaining([
        'coreProcessingTime',
        'version',
        'epoch',
        'position',
        'progress',
        'lastCheckpoint',
        'eventsProcessedAfterRestart',
        'checkpointStatus',
        'bufferedEvents',
        'writePendingEventsBeforeCheckpoint',
        'writePendingEventsAfterCheckpoint',
      ]),
    );

    await waitFor('the partitions', () => hp.projections!.state('sales', 'b') !== '');
    expect(JSON.parse(await pm.getPartitionState('sales', 'a', admin))).toEqual({ qty: 2 });
    expect(JSON.parse(await pm.getPartitionResult('sales', 'b', admin))).toEqual({ qty: 1 });
    expect(await pm.getState('sales', admin)).toBe('');
    const stats = JSON.parse(await pm.getStatistics('sales', admin));
    expect(stats.projections).toHaveLength(1);
    expect(stats.projections[0].name).toBe('sales');
    expect(await pm.getQuery('sales', admin)).toBe(query);

    const updated = `fromCategory('shop').when({ $init: function () { return { n: 0 }; }, Sold: function (s) { s.n++; } })`;
    await pm.updateQuery('sales', updated, admin);
    expect(await pm.getQuery('sales', admin)).toBe(updated);
    await conn.appendToStream('shop-2', es.expectedVersion.any, [jsonEvent(es, 'Sold', { sku: 'c', qty: 5 })]);
    // The update keeps the epoch: processing goes on from the checkpoint, counting only the new event.
    await waitFor('the new root state', () => hp.projections!.state('sales') !== '');
    expect(JSON.parse(await pm.getState('sales', admin))).toEqual({ n: 1 });

    await pm.disable('sales', admin);
    expect((await status('sales')).status).toBe('Stopped');
    await pm.enable('sales', admin);
    expect((await status('sales')).status).toBe('Running');
    await pm.reset('sales', admin);
    await waitFor('the state recomputed from the start', () => hp.projections!.state('sales') === '{"n":3}');
    await pm.abort('sales', admin);
    expect((await status('sales')).status).toBe('Aborted');

    await pm.delete('sales', true, true, false, admin);
    await expect(pm.getStatus('sales', admin)).rejects.toMatchObject({ httpStatusCode: 404 });
    await expect(pm.listAll(admin)).resolves.not.toContainEqual(expect.objectContaining({ name: 'sales' }));
  });

  it('runs one-time projections and lists them apart', async () => {
    await pm.createOneTime(
      `fromAll().when({ $init: function () { return { n: 0 }; }, Sold: function (s) { s.n++; } })`,
      admin,
    );
    const oneTime = await pm.listOneTime(admin);
    expect(oneTime).toHaveLength(1);
    expect(oneTime[0].mode).toBe('OneTime');
    await waitFor('completion', () => hp.projections!.get(oneTime[0].name).progress.status === 'Completed');
    expect(JSON.parse(await pm.getState(oneTime[0].name, admin))).toEqual({ n: 3 });
  });

  it('answers 401 without credentials, 409 for a taken name, 500 for a refused command, 404 for an unknown one', async () => {
    await expect(pm.listAll(null)).rejects.toMatchObject({ httpStatusCode: 401 });
    await expect(pm.createContinuous('$by_category', 'fromAll()', false, admin)).rejects.toMatchObject({
      httpStatusCode: 409,
    });
    await expect(pm.delete('$by_category', false, false, false, admin)).rejects.toMatchObject({ httpStatusCode: 500 });
    await expect(pm.enable('nothing-here', admin)).rejects.toMatchObject({ httpStatusCode: 404 });
    await hp.eventLog.users.add({ name: 'reader', password: 'reader-pass', groups: [] });
    await expect(
      pm.delete('$by_category', false, false, false, new es.UserCredentials('reader', 'reader-pass')),
    ).rejects.toMatchObject({ httpStatusCode: 401 });
  });

  it('refuses a query larger than 1 MiB with 413 before keeping any of it', async () => {
    const huge = `fromAll(); // ${'x'.repeat(1024 * 1024)}`;
    await expect(pm.createContinuous('huge', huge, false, admin)).rejects.toMatchObject({ httpStatusCode: 413 });
    await expect(pm.getStatus('huge', admin)).rejects.toMatchObject({ httpStatusCode: 404 });
  });
});

describe('HTTP projections API in cleartext mode (--grpc-insecure)', () => {
  let server: GrpcTestServer;

  beforeAll(async () => {
    server = await startGrpcTestServer({ insecure: true, runProjections: 'all' });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('answers ProjectionsManager over http:// without credentials, as KurrentDB --insecure', async () => {
    const es: Es = (await import('node-eventstore-client')).default;
    const pm = new es.ProjectionsManager(quietLog, `http://127.0.0.1:${server.port}`, 10_000);
    await pm.createContinuous('plain', `fromAll().when({ $init: function () { return {}; } })`, false, null);
    const names = (await pm.listContinuous(null)).map((p: { name: string }) => p.name);
    expect(names).toContain('plain');
    expect(names).toContain('$by_category');
  });
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../tcp/testing/client-connection.ts';
import { append, jsonEvent, startFixture, tempDataDir, waitFor, type ProjectionsFixture } from '../testing/fixture.ts';

/** JavaScript projections run in their sandbox: the API, modes, state/result/checkpoint streams, faults. */

const ADMIN = { name: 'admin', groups: ['$admins'] };
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('JavaScript projections', () => {
  let dataDir: string;
  let fx: ProjectionsFixture;
  const manager = () => fx.projections!;
  const events = (streamId: string) =>
    fx.eventLog.store.readStreamForward(streamId, 0, 4096, false, ADMIN).events.map((e) => e.event!);
  const status = (name: string) => manager().get(name).progress.status;
  const stateOf = (name: string, partition = '') => {
    const s = manager().state(name, partition);
    return s === '' ? undefined : JSON.parse(s);
  };

  beforeAll(async () => {
    dataDir = tempDataDir();
    fx = await startFixture(dataDir);
  });

  afterAll(async () => {
    await fx?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('folds a stream into state, writes its result stream and checkpoints [state,result]', async () => {
    await append(fx.eventLog, 'account-1', [
      jsonEvent('Deposited', { amount: 5 }),
      jsonEvent('Deposited', { amount: 7 }),
    ]);
    await manager().create({
      name: 'balance',
      mode: 'Continuous',
      query: `fromStream('account-1').when({
        $init: function () { return { total: 0, count: 0 }; },
        Deposited: function (s, e) { s.total += e.body.amount; s.count++; },
      }).outputState()`,
    });
    await waitFor('the balance of 12', () => stateOf('balance')?.total === 12);
    await append(fx.eventLog, 'account-1', [
      jsonEvent('Deposited', { amount: 1 }),
      jsonEvent('Withdrawn', { amount: 1 }),
    ]);
    await waitFor(
      'the balance of 13',
      () =>
        stateOf('balance')?.count === 3 &&
        manager().get('balance').progress.position?.kind === 'streams' &&
        (manager().get('balance').progress.position as { streams: Record<string, number> }).streams['account-1'] === 3,
    );
    expect(stateOf('balance')).toEqual({ total: 13, count: 3 });
    const results = events('$projections-balance-result');
    expect(results.map((e) => [e.eventType, JSON.parse(text(e.data))])).toContainEqual([
      'Result',
      { total: 13, count: 3 },
    ]);
    const checkpoint = events('$projections-balance-checkpoint').at(-1)!;
    expect(checkpoint.eventType).toBe('$ProjectionCheckpoint');
    expect(JSON.parse(text(checkpoint.data))).toEqual([
      { total: 13, count: 3 },
      { total: 13, count: 3 },
    ]);
    expect(JSON.parse(text(checkpoint.metadata))).toMatchObject({ $s: { 'account-1': 3 } });
  });

  it('foreachStream over a category keeps one state per stream; partitionBy one per key', async () => {
    await manager().create({
      name: 'per-cart',
      mode: 'Continuous',
      query: `fromCategory('cart').foreachStream().when({
        $init: function () { return { items: 0 }; },
        ItemAdded: function (s, e) { s.items += 1; s.last = e.streamId + '/' + e.sequenceNumber; },
      })`,
    });
    await manager().create({
      name: 'by-sku',
      mode: 'Continuous',
      query: `fromAll().partitionBy(function (e) { return e.body.sku; }).when({
        $init: function () { return 0; },
        ItemAdded: function (s, e) { return s + 1; },
      })`,
    });
    await append(fx.eventLog, 'cart-1', [jsonEvent('ItemAdded', { sku: 'a' }), jsonEvent('ItemAdded', { sku: 'b' })]);
    await append(fx.eventLog, 'cart-2', [jsonEvent('ItemAdded', { sku: 'a' })]);
    await waitFor('cart-2 counted', () => stateOf('per-cart', 'cart-2')?.items === 1);
    await waitFor('cart-1 counted', () => stateOf('per-cart', 'cart-1')?.items === 2);
    expect(stateOf('per-cart', 'cart-1')).toEqual({ items: 2, last: 'cart-1/1' });
    await waitFor('sku a counted twice', () => stateOf('by-sku', 'a') === 2);
    expect(stateOf('by-sku', 'b')).toBe(1);
    expect(events('$projections-per-cart-partitions').map((e) => text(e.data))).toEqual(['cart-1', 'cart-2']);
    expect(JSON.parse(text(events('$projections-per-cart-cart-1-checkpoint').at(-1)!.data))).toEqual([
      { items: 2, last: 'cart-1/1' },
    ]);
  });

  it('emit and linkTo write EventStoreDB-stamped events; transformBy and filterBy shape the result', async () => {
    await append(fx.eventLog, 'order-7', [jsonEvent('OrderPlaced', { total: 30 }, { $correlationId: 'corr-7' })]);
    const source = events('order-7')[0];
    await manager().create({
      name: 'orders-out',
      mode: 'Continuous',
      emit: true,
      query: `fromStream('order-7').when({
        $init: function () { return { n: 0 }; },
        OrderPlaced: function (s, e) {
          s.n++;
          emit('invoices-7', 'InvoiceRequested', { total: e.body.total }, { origin: 'orders' });
          linkTo('big-orders', e);
        },
      }).transformBy(function (s) { return { doubled: s.n * 2 }; }).filterBy(function (r) { return r.doubled > 0; })`,
    });
    await waitFor('the invoice', () => fx.eventLog.store.lastEventNumber('big-orders') === 0);
    const [invoice] = events('invoices-7');
    expect(invoice.eventType).toBe('InvoiceRequested');
    expect(JSON.parse(text(invoice.data))).toEqual({ total: 30 });
    const id = manager().get('orders-out').id;
    expect(JSON.parse(text(invoice.metadata))).toEqual({
      $v: `${id}:-1:0:4`,
      $s: { 'order-7': 0 },
      origin: 'orders',
      $causedBy: source.eventId,
      $correlationId: 'corr-7',
    });
    const [link] = events('big-orders');
    expect([link.eventType, text(link.data)]).toEqual(['$>', '0@order-7']);
    expect(JSON.parse(manager().result('orders-out'))).toEqual({ doubled: 2 });
  });

  it('faults a projection that emits without emit enabled', async () => {
    await append(fx.eventLog, 'noemit-1', [jsonEvent('Happened', {})]);
    await manager().create({
      name: 'no-emit',
      mode: 'Continuous',
      query: `fromStream('noemit-1').when({ Happened: function (s, e) { emit('elsewhere', 'X', {}); } })`,
    });
    await waitFor('the fault', () => status('no-emit') === 'Faulted');
    expect(manager().get('no-emit').progress.stateReason).toBe(
      "'emit' is not allowed by the projection/configuration/mode",
    );
    expect(fx.eventLog.store.lastEventNumber('elsewhere')).toBe(-1);
  });

  it('runs a one-time projection to completion', async () => {
    const created = await manager().create({
      mode: 'OneTime',
      query: `fromCategory('cart').when({ $init: function () { return { n: 0 }; }, $any: function (s) { s.n++; } })`,
    });
    await waitFor('completion', () => status(created.name) === 'Completed');
    expect(stateOf(created.name)).toEqual({ n: 3 });
  });

  it('resumes from its checkpoint after a restart: every event counted exactly once', async () => {
    await append(fx.eventLog, 'tally-1', [jsonEvent('Tick', {}), jsonEvent('Tick', {})]);
    await manager().create({
      name: 'tally',
      mode: 'Continuous',
      emit: true,
      query: `fromStream('tally-1').when({ $init: function () { return 0; }, Tick: function (s, e) { emit('tally-out', 'Counted', { n: s + 1 }); return s + 1; } })`,
    });
    await waitFor('2 ticks', () => stateOf('tally') === 2);
    await fx.stop();
    fx = await startFixture(dataDir);
    await append(fx.eventLog, 'tally-1', [jsonEvent('Tick', {})]);
    await waitFor('3 ticks', () => stateOf('tally') === 3);
    expect(events('tally-out').map((e) => JSON.parse(text(e.data)).n)).toEqual([1, 2, 3]);
  });

  it('reset reprocesses from the start and hides what the earlier epoch emitted ($tb)', async () => {
    await manager().reset('tally');
    await waitFor('3 ticks again', () => stateOf('tally') === 3 && status('tally') === 'Running');
    await waitFor('the re-emitted events', () => fx.eventLog.store.lastEventNumber('tally-out') === 5);
    expect(fx.eventLog.store.getStreamMetadata('tally-out').truncateBefore).toBe(3);
    expect(events('tally-out').map((e) => JSON.parse(text(e.data)).n)).toEqual([1, 2, 3]);
  });

  it('disable keeps the state; delete refuses while running and removes the checkpoint stream when asked', async () => {
    await expect(manager().delete('tally')).rejects.toThrow(
      "Cannot delete a projection that hasn't been stopped or faulted.",
    );
    await manager().disable('tally');
    expect(status('tally')).toBe('Stopped');
    expect(stateOf('tally')).toBe(3);
    await manager().delete('tally', { deleteCheckpointStream: true });
    expect(() => manager().get('tally')).toThrow("Projection 'tally' not found");
    // Soft-deleted, as EventStoreDB deletes it: reads answer NoStream.
    expect(fx.eventLog.store.readStreamForward('$projections-tally-checkpoint', 0, 1, false, ADMIN).result).toBe(
      'NoStream',
    );
    await expect(manager().delete('$by_category')).rejects.toThrow(/deletion of System Projections/);
    await expect(manager().create({ name: 'per-cart', mode: 'Continuous', query: 'fromAll()' })).rejects.toThrow(
      'Duplicate projection names : per-cart',
    );
  });
});

describe('the sandbox', () => {
  let dataDir: string;
  let fx: ProjectionsFixture;

  beforeAll(async () => {
    dataDir = tempDataDir();
    fx = await startFixture(dataDir, 'all', {
      executionMs: 1500,
      compileMs: 500,
      memoryBytes: 8 * 1024 * 1024,
      stackBytes: 256 * 1024,
    });
    await append(fx.eventLog, 'probe-1', [jsonEvent('Probe', {})]);
  });

  afterAll(async () => {
    await fx?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const run = async (name: string, handler: string, executionTimeoutMs?: number) => {
    await fx.projections!.create({
      name,
      mode: 'Continuous',
      query: `fromStream('probe-1').when({ Probe: ${handler} })`,
      enabled: executionTimeoutMs === undefined,
    });
    if (executionTimeoutMs !== undefined) {
      await fx.projections!.updateConfig(name, { projectionExecutionTimeout: executionTimeoutMs });
      await fx.projections!.enable(name);
    }
    await waitFor(`${name} to settle`, () => {
      const p = fx.projections!.get(name).progress;
      return p.status === 'Faulted' || (p.status === 'Running' && p.eventsProcessedAfterRestart > 0) ? p : false;
    });
    return fx.projections!.get(name).progress;
  };

  it('offers no require, process, timers, fetch or eval of strings into the host', async () => {
    const p = await run(
      'reach',
      `function (s, e) { return { require: typeof require, process: typeof process, setTimeout: typeof setTimeout, fetch: typeof fetch, queueMicrotask: typeof queueMicrotask, fromAll: typeof fromAll }; }`,
    );
    expect(p.status).toBe('Running');
    expect(JSON.parse(fx.projections!.state('reach'))).toEqual({
      require: 'undefined',
      process: 'undefined',
      setTimeout: 'undefined',
      fetch: 'undefined',
      queueMicrotask: 'undefined',
      fromAll: 'undefined',
    });
  });

  it('faults a throwing projection with its error and the event position', async () => {
    const p = await run('throws', `function () { throw new Error('boom'); }`);
    expect(p.status).toBe('Faulted');
    expect(p.stateReason).toContain('The throws projection failed to process an event.');
    expect(p.stateReason).toContain('probe-1: 0');
    expect(p.stateReason).toContain('boom');
  });

  it('faults a looping projection while the server keeps answering', async () => {
    const es = (await import('node-eventstore-client')).default;
    const conn = await connectClient(es, fx.endpoint);
    try {
      const created = fx.projections!.create({
        name: 'loops',
        mode: 'Continuous',
        query: `fromStream('probe-1').when({ Probe: function () { while (true) {} } })`,
      });
      await created;
      // The handler spins in its worker for its 1.5 s budget: reads and writes are answered meanwhile.
      let answered = 0;
      while (fx.projections!.get('loops').progress.status === 'Running') {
        await conn.appendToStream('alive-1', es.expectedVersion.any, [
          es.createJsonEventData(crypto.randomUUID(), {}, null, 'Alive'),
        ]);
        const read = await conn.readStreamEventsBackward('alive-1', -1, 1, false);
        if (read.events.length === 1) answered++;
      }
      expect(answered).toBeGreaterThan(0);
      const p = fx.projections!.get('loops').progress;
      expect(p.status).toBe('Faulted');
      expect(p.stateReason).toContain('Projection script took too long to execute');
    } finally {
      conn.close();
    }
  });

  it('faults a memory-hungry projection and one that recurses without end', async () => {
    const memory = await run(
      'hungry',
      `function () { var a = []; for (var i = 0; ; i++) a.push({ i: i, s: 'abc' + i }); }`,
      // Under a loaded machine filling the heap can outlast the default 1.5 s budget: memory must fault it first.
      60_000,
    );
    expect(memory.status).toBe('Faulted');
    expect(memory.stateReason).toMatch(/out of memory/);
    const deep = await run('deep', `function () { function f() { return f() + 1; } return f(); }`);
    expect(deep.status).toBe('Faulted');
    expect(deep.stateReason).toMatch(/stack overflow/);
  });

  it('faults a query that does not compile or names no source, and one that loops while compiling', async () => {
    await fx.projections!.create({ name: 'broken', mode: 'Continuous', query: 'fromAll(.when(' });
    await fx.projections!.create({ name: 'sourceless', mode: 'Continuous', query: 'options({})' });
    await fx.projections!.create({ name: 'compile-loop', mode: 'Continuous', query: 'for (;;) {}' });
    await waitFor('three faults', () =>
      ['broken', 'sourceless', 'compile-loop'].every((n) => fx.projections!.get(n).progress.status === 'Faulted'),
    );
    expect(fx.projections!.get('broken').progress.stateReason).toMatch(/SyntaxError/);
    expect(fx.projections!.get('sourceless').progress.stateReason).toBe(
      'Error: None of streams and categories are included',
    );
    expect(fx.projections!.get('compile-loop').progress.stateReason).toContain('took too long');
  });
});

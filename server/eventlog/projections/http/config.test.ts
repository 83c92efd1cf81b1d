import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpectedVersion } from '../../index.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../../grpc/testing/homeport.ts';
import { waitFor } from '../testing/fixture.ts';

/**
 * `GET`/`PUT /projection/<name>/config` as EventStoreDB serves them (the legacy admin UI's Config dialog):
 * only a stopped or faulted projection takes a new one, a timeout of 0 is a 400, and the execution timeout
 * bounds each handler call of that projection's sandbox. `POST /projections/restart` (RestartSubsystem)
 * starts it again once the config lets it finish.
 */

describe('HTTP projection config', () => {
  let server: GrpcTestServer;
  let base: string;

  beforeAll(async () => {
    // Cleartext (as KurrentDB's --insecure): plain HTTP/1.1 on the gRPC port, no credentials.
    server = await startGrpcTestServer({ insecure: true, runProjections: 'all' });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${base}${path}`, { method, body });
    return { status: res.status, text: await res.text() };
  };

  it('reads and saves the config; its execution timeout faults a handler the default would let finish after a restart', async () => {
    const hp = server.homeport;
    await hp.eventLog.store.appendToStream(
      'slow-1',
      ExpectedVersion.Any,
      [
        {
          eventId: crypto.randomUUID(),
          eventType: 'Tick',
          isJson: true,
          data: Buffer.from('{}'),
          metadata: new Uint8Array(0),
        },
      ],
      { name: 'admin', groups: ['$admins'] },
    );
    // Each event keeps the handler busy for 100 ms: within the default 250 ms.
    const query = `fromStream('slow-1').when({ Tick: function (s) { var end = Date.now() + 100; while (Date.now() < end) {} return { n: (s.n || 0) + 1 }; } })`;
    expect((await call('POST', '/projections/continuous?name=slow&type=JS&enabled=no', query)).status).toBe(201);
    const defaults = JSON.parse((await call('GET', '/projection/slow/config')).text);
    expect(defaults).toEqual({
      emitEnabled: false,
      trackEmittedStreams: false,
      checkpointAfterMs: 0,
      checkpointHandledThreshold: 4000,
      checkpointUnhandledBytesThreshold: 10_000_000,
      pendingEventsThreshold: 5000,
      maxWriteBatchLength: 500,
      maxAllowedWritesInFlight: 0,
      projectionExecutionTimeout: 250,
    });

    expect((await call('PUT', '/projection/slow/config', '{"projectionExecutionTimeout":0}')).status).toBe(400);
    expect((await call('PUT', '/projection/slow/config', 'not json')).status).toBe(400);
    const saved = await call(
      'PUT',
      '/projection/slow/config',
      // 1 ms, not 20: on a loaded machine the sandbox's thread can sleep through a short deadline and find
      // the 100 ms loop already over when it next checks the clock.
      '{"projectionExecutionTimeout":1,"checkpointAfterMs":5}',
    );
    expect(saved.status).toBe(200);
    expect(JSON.parse(saved.text)).toMatchObject({ projectionExecutionTimeout: 1, checkpointAfterMs: 5 });
    expect(JSON.parse((await call('GET', '/projection/slow/config')).text).projectionExecutionTimeout).toBe(1);

    expect((await call('POST', '/projection/slow/command/enable')).status).toBe(200);
    await waitFor('slow faulted', () => hp.projections!.get('slow').progress.status === 'Faulted');
    expect(hp.projections!.get('slow').progress.stateReason).toContain('took too long');

    // Back to the default; restarting the subsystem (as an operator recovers faulted projections in
    // EventStoreDB) starts the enabled, faulted projection again: the same event is handled.
    expect((await call('PUT', '/projection/slow/config', '{"projectionExecutionTimeout":250}')).status).toBe(200);
    expect(await call('POST', '/projections/restart')).toEqual({ status: 200, text: 'Restarting' });
    await waitFor('slow ran', () => hp.projections!.state('slow') === '{"n":1}');
    // Running: the config is refused, as EventStoreDB refuses it.
    expect((await call('PUT', '/projection/slow/config', '{"projectionExecutionTimeout":100}')).status).toBe(500);
    expect((await call('GET', '/projection/nothing/config')).status).toBe(404);
  });
});

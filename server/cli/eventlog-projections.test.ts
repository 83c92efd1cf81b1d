import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcTestServer, type GrpcTestServer } from '../eventlog/grpc/testing/homeport.ts';
import { waitFor } from '../eventlog/projections/testing/fixture.ts';
import { runCli } from './main.ts';

/** `homeport eventlog projections …` against a running server's HTTP projections API (TLS, the data dir's certificate). */
describe('homeport eventlog projections', () => {
  let server: GrpcTestServer;
  let cli: (...args: string[]) => Promise<{ code: number; out: string[]; err: string[] }>;

  beforeAll(async () => {
    server = await startGrpcTestServer();
    cli = async (...args) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        [...args, '--data-dir', server.dataDir, '--server', `https://127.0.0.1:${server.port}`],
        { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, stopSignal: new Promise(() => {}) },
      );
      return { code, out, err };
    };
  });

  afterAll(async () => {
    await server?.close();
  });

  it('creates, lists, reads, disables, resets and deletes a projection', async () => {
    const queryFile = path.join(server.dataDir, 'count.js');
    fs.writeFileSync(
      queryFile,
      `fromAll().when({ $init: function () { return { n: 0 }; }, Counted: function (s) { s.n++; } })`,
    );
    const auth = ['--password', 'changeit'];
    expect(await cli('eventlog', 'projections', 'create', 'counter', '--query-file', queryFile, ...auth)).toMatchObject(
      {
        code: 0,
        out: ['created counter'],
      },
    );
    await server.homeport.eventLog.store.appendToStream(
      'count-1',
      -2,
      [
        {
          eventId: crypto.randomUUID(),
          eventType: 'Counted',
          isJson: true,
          data: Buffer.from('{}'),
          metadata: new Uint8Array(0),
        },
      ],
      null,
    );
    await waitFor('the count', () => server.homeport.projections!.state('counter') === '{"n":1}');
    const list = await cli('eventlog', 'projections', 'list', ...auth);
    expect(list.code).toBe(0);
    expect(list.out.find((l) => l.startsWith('counter\t'))).toMatch(/^counter\tRunning\tContinuous\t/);
    expect(list.out.some((l) => l.startsWith('$by_category\tRunning\tContinuous'))).toBe(true);
    expect(await cli('eventlog', 'projections', 'state', 'counter', ...auth)).toMatchObject({
      code: 0,
      out: ['{"n":1}'],
    });
    expect(await cli('eventlog', 'projections', 'reset', 'counter', ...auth)).toMatchObject({
      code: 0,
      out: ['reset: counter'],
    });
    await waitFor('the recount', () => server.homeport.projections!.state('counter') === '{"n":1}');
    expect(await cli('eventlog', 'projections', 'disable', 'counter', ...auth)).toMatchObject({ code: 0 });
    expect(server.homeport.projections!.get('counter').progress.status).toBe('Stopped');
    expect(
      await cli('eventlog', 'projections', 'delete', 'counter', '--delete-checkpoint-stream', ...auth),
    ).toMatchObject({
      code: 0,
      out: ['deleted counter'],
    });
    expect(await cli('eventlog', 'projections', 'show', 'counter', ...auth)).toMatchObject({
      code: 1,
      err: [expect.stringContaining("404: Projection 'counter' not found")],
    });
  });

  it('says what is wrong: no credentials, a missing query file', async () => {
    expect(await cli('eventlog', 'projections', 'list')).toMatchObject({
      code: 1,
      err: [expect.stringContaining('not authorized')],
    });
    expect(await cli('eventlog', 'projections', 'create', 'x', '--password', 'changeit')).toMatchObject({
      code: 2,
      err: [expect.stringContaining('--query-file is required')],
    });
  });
});

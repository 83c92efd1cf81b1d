import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeport, type Homeport } from '../../start.ts';
import { UI_API_PREFIX } from '../../http/index.ts';
import { ExpectedVersion } from '../index.ts';
import { seedMixedContent } from '../replication/testing/content.ts';
import { removeTempDirs, tcpClient, tempDir } from '../replication/testing/serve.ts';
import { waitFor } from '../testing/wait-for.ts';
import type { UiReplication } from './contract.ts';

const ADMIN = { name: 'admin', groups: ['$admins'] };

function start(): Promise<Homeport> {
  return startHomeport({
    dataDir: tempDir('ui'),
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    grpcPort: null,
    logToConsole: false,
    logLevel: 'warn',
    rendererDir: null,
  });
}

describe('UI API: replications into this Homeport', () => {
  let source: Homeport;
  let home: Homeport;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${home.httpUrl}${UI_API_PREFIX}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${home.uiToken}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });
  const list = async () =>
    ((await (await api('/eventlog/replications')).json()) as { replications: UiReplication[] }).replications;

  beforeAll(async () => {
    [source, home] = await Promise.all([start(), start()]);
    const c = await tcpClient(source.tcpPort);
    await seedMixedContent(c);
    c.close();
  }, 60_000);

  afterAll(async () => {
    await home.close();
    await source.close();
    removeTempDirs();
  });

  it('starts a live replication, shows its progress without the password, and stops it', async () => {
    const from = `tcp://admin:changeit@127.0.0.1:${source.tcpPort}`;
    const refused = await fetch(`${home.httpUrl}${UI_API_PREFIX}/eventlog/replications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from, to: 'local' }),
    });
    expect(refused.status).toBe(401);
    expect(
      (await api('/eventlog/replications', { method: 'POST', body: JSON.stringify({ from, to: from }) })).status,
    ).toBe(400);

    const created = await api('/eventlog/replications', {
      method: 'POST',
      body: JSON.stringify({ from, to: 'local', continuous: true }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as UiReplication;
    let current: UiReplication | undefined;
    const poll = async (done: (r: UiReplication) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        current = (await list()).find((r) => r.id === id);
        if (current && done(current)) return;
        if (Date.now() > deadline) throw new Error(`replication stuck: ${JSON.stringify(current)}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await poll((r) => r.progress?.phase === 'live');
    expect(current!.from).toBe(`tcp://127.0.0.1:${source.tcpPort}`);
    expect(JSON.stringify(await list())).not.toContain('changeit');

    const eventId = crypto.randomUUID();
    const event = {
      eventId,
      eventType: 'Live',
      isJson: true,
      data: Buffer.from('{"n":1}'),
      metadata: new Uint8Array(0),
    };
    await source.eventLog.store.appendToStream('ui-live', ExpectedVersion.Any, [event], ADMIN);
    await waitFor(
      () => home.eventLog.store.readEvent('ui-live', 0, false, ADMIN).event?.event?.eventId === eventId,
      'the live event in this Homeport',
    );

    expect((await api(`/eventlog/replications/${id}`, { method: 'DELETE' })).status).toBe(204);
    await poll((r) => r.state !== 'running');
    expect(current!.state).toBe('stopped');
    expect(current!.summary!.copied).toBeGreaterThan(30);
    expect((await api(`/eventlog/replications/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/eventlog/replications/${crypto.randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
  }, 60_000);
});

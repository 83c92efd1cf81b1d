import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Homeport } from '../../start.ts';
import { startTestHomeport } from '../../testing/homeport.ts';
import { UI_API_PREFIX } from '../../http/index.ts';
import { ExpectedVersion } from '../index.ts';
import { seedMixedContent } from '../replication/testing/content.ts';
import { removeTempDirs, tcpClient, tempDir } from '../replication/testing/serve.ts';
import { waitFor } from '../testing/wait-for.ts';
import type { UiReplication } from './contract.ts';

const ADMIN = { name: 'admin', groups: ['$admins'] };

function start(): Promise<Homeport> {
  return startTestHomeport(tempDir('ui'), { tcpTlsPort: null, grpcPort: null, logLevel: 'warn' });
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
  it('refuses link-local and metadata addresses, and takes the password apart from the address', async () => {
    const start = (body: object) => api('/eventlog/replications', { method: 'POST', body: JSON.stringify(body) });
    for (const from of [
      'tcp://admin:changeit@169.254.169.254:1113',
      'tcp://admin:changeit@[::ffff:169.254.169.254]:1113',
      'tcp://admin:changeit@[fe80::1]:1113',
      'tcp://admin:changeit@100.100.100.200:1113',
      'tcp://admin:changeit@0.0.0.0:1113',
      'kurrentdb+discover://admin:changeit@169.254.169.254:2113',
      'kurrentdb://admin:changeit@[fd00:ec2::254]:2113?tls=false',
      // a cluster's seeds: every one is checked
      'kurrentdb+discover://admin:changeit@127.0.0.1:2113,169.254.169.254:2113',
      'kurrentdb://admin:changeit@localhost,127.0.0.1,[fe80::1]?tls=false',
      'tcp://admin:changeit@no-such-host.invalid:1113',
    ]) {
      const refused = await start({ from, to: 'local' });
      expect(refused.status, from).toBe(400);
      expect(((await refused.json()) as { error: string }).error, from).toMatch(/link-local|not found/);
    }
    // The gRPC client prints an option it does not know with the whole string, password included: refused first.
    const warn = vi.spyOn(console, 'warn');
    try {
      const unknown = await start({
        from: 'kurrentdb://admin:s3cret-pw@127.0.0.1:2113?tls=false&colour=blue',
        to: 'local',
      });
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { error: string }).error).toMatch(/unknown option "colour"/);
      expect(JSON.stringify(warn.mock.calls)).not.toContain('s3cret-pw');
    } finally {
      warn.mockRestore();
    }
    const before = (await list()).length;
    const noPassword = await start({ from: `tcp://admin@127.0.0.1:${source.tcpPort}`, to: 'local' });
    expect(noPassword.status).toBe(400);
    expect((await list()).length).toBe(before);

    // The owner's own machine (loopback) is what this is for; the password goes in its own field.
    const password = 'changeit';
    // This Homeport holds the first test's copy already: into an existing store, on from its checkpoint.
    const from = `tcp://admin@localhost:${source.tcpPort}`;
    const created = await start({ from, to: 'local', password, intoExisting: true });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as UiReplication;
    const deadline = Date.now() + 30_000;
    let done = (await list()).find((r) => r.id === id)!;
    while (done.state === 'running') {
      if (Date.now() > deadline) throw new Error(`replication stuck: ${JSON.stringify(done)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = (await list()).find((r) => r.id === id)!;
    }
    expect(done.state, done.error ?? '').toBe('finished');
    expect(done.error).toBeNull();
    expect(done.summary!.handled).toBeGreaterThan(30);
    expect(JSON.stringify(await list())).not.toContain(password);
  }, 60_000);
});

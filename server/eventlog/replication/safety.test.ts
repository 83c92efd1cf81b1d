import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, LogRing } from '../../logger.ts';
import type { Homeport } from '../../start.ts';
import { startTestHomeport } from '../../testing/homeport.ts';
import { openEndpoint, parseEndpoint, replicate } from './index.ts';
import { seedMixedContent } from './testing/content.ts';
import { removeTempDirs, startReplicator, tcpClient, tempDir } from './testing/serve.ts';

const logger = createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) });

async function runInProcess(from: string, to: string): Promise<number> {
  const source = await openEndpoint(parseEndpoint(from), logger, 'source');
  const target = await openEndpoint(parseEndpoint(to), logger, 'target');
  try {
    const summary = await replicate({
      openSource: () => source.openSource(),
      openTarget: () => target.openTarget(),
      name: 'safety',
      giveUpAfterMs: 0,
      backoff: { initialMs: 10, maxMs: 10 },
    });
    return summary.copied;
  } finally {
    await source.close();
    await target.close();
  }
}

describe('replication: TLS, credentials, refusals', () => {
  let homeport: Homeport;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir('safety');
    homeport = await startTestHomeport(dataDir, { grpcPort: null, logLevel: 'warn' });
    const c = await tcpClient(homeport.tcpPort);
    await seedMixedContent(c);
    c.close();
  }, 60_000);

  afterAll(async () => {
    await homeport.close();
    removeTempDirs();
  });

  it('reads over TLS trusting the server certificate given as tlsCAFile, and refuses it unverified', async () => {
    const caFile = path.join(dataDir, 'tls', 'eventlog-cert.pem');
    const base = `tcp://admin:changeit@127.0.0.1:${homeport.tlsPort}`;
    await expect(runInProcess(`${base}?tls=true`, tempDir('tls-refused'))).rejects.toThrow();
    const copied = await runInProcess(`${base}?tlsCAFile=${encodeURIComponent(caFile)}`, tempDir('tls-ok'));
    expect(copied).toBeGreaterThan(30);
  }, 60_000);

  it('takes the password from standard input and never prints it', async () => {
    const from = `tcp://admin@127.0.0.1:${homeport.tcpPort}`;
    const good = startReplicator(['--from', from, '--to', tempDir('stdin-ok'), '--password-stdin'], 'changeit\n');
    expect(await good.exitCode, good.output()).toBe(0);
    expect(good.output()).toMatch(/^replicated: \d+ events written/m);
    expect(good.output()).not.toContain('changeit');

    const bad = startReplicator(['--from', from, '--to', tempDir('stdin-bad'), '--password-stdin'], 'Wr0ng-Secret\n');
    expect(await bad.exitCode, bad.output()).toBe(1);
    expect(bad.output()).toMatch(/refused the user name or password/);
    expect(bad.output()).not.toContain('Wr0ng-Secret');

    const missing = startReplicator(['--from', from, '--to', tempDir('stdin-missing')]);
    expect(await missing.exitCode).toBe(2);
    expect(missing.output()).toMatch(/without a password/);
  }, 120_000);

  it('never prints the password of a connection string', async () => {
    const from = `tcp://admin:changeit@127.0.0.1:${homeport.tcpPort}`;
    const run = startReplicator(['--from', from, '--to', tempDir('inline')]);
    expect(await run.exitCode, run.output()).toBe(0);
    expect(run.output()).toContain(`tcp://127.0.0.1:${homeport.tcpPort}`);
    expect(run.output()).not.toContain('changeit');
  }, 60_000);

  it('refuses a non-empty target without --into-existing, and a data directory a server holds', async () => {
    const from = `tcp://admin:changeit@127.0.0.1:${homeport.tcpPort}`;
    const target = tempDir('busy');
    const first = startReplicator(['--from', from, '--to', target, '--name', 'one']);
    expect(await first.exitCode, first.output()).toBe(0);
    const other = startReplicator(['--from', from, '--to', target, '--name', 'two']);
    expect(await other.exitCode).toBe(1);
    expect(other.output()).toMatch(/already holds events; pass --into-existing/);
    const into = startReplicator(['--from', from, '--to', target, '--name', 'two', '--into-existing']);
    expect(await into.exitCode, into.output()).toBe(0);

    const held = startReplicator(['--from', from, '--to', dataDir, '--into-existing']);
    expect(await held.exitCode).toBe(1);
    expect(held.output()).toMatch(/in use by another Homeport server.*replicate through that server's address/);
    expect(fs.existsSync(path.join(target, 'eventlog.db'))).toBe(true);
  }, 120_000);
});

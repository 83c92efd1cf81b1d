import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { jsonEvent, KurrentDBClient } from '@kurrent/kurrentdb-client';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../app-root.ts';

/** `homeport serve` as a person runs it: the printed gRPC line holds a connection string that works. */
const cli = path.join(APP_ROOT, 'bin', 'homeport.js');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-grpc-cli-'));
  dirs.push(d);
  return d;
}
const base = (dir: string) => ['serve', '--data-dir', dir, '--http-port', '0', '--tcp-port', '0'];

function serve(args: string[]): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, [cli, ...args, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${lines.join('\n')}`)), 60_000);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('data directory ')) {
        clearTimeout(timer);
        resolve({ child, lines });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

describe('homeport serve and gRPC', () => {
  it('prints a gRPC line whose connection string the official client uses as it is (plus an account)', async () => {
    const { child, lines } = await serve([...base(tempDir()), '--tcp-tls-port', 'off']);
    const line = lines.find((l) => l.startsWith('eventlog grpc listening on '));
    const m = /^eventlog grpc listening on 127\.0\.0\.1:(\d+) \((kurrentdb:\/\/127\.0\.0\.1:\1\?tlsCAFile=\S+)\)$/.exec(
      line ?? '',
    );
    expect(m, line).not.toBeNull();
    const client = KurrentDBClient.connectionString(m![2].replace('kurrentdb://', 'kurrentdb://admin:changeit@'));
    try {
      await client.appendToStream('from-cli', jsonEvent({ type: 't', data: { ok: true } }));
      const read = [];
      for await (const e of client.readStream('from-cli')) read.push(e);
      expect(read[0].event?.data).toEqual({ ok: true });
    } finally {
      await client.dispose();
    }
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('takes --grpc-port off, and refuses --grpc-insecure beyond loopback', async () => {
    const { lines } = await serve([...base(tempDir()), '--tcp-tls-port', 'off', '--grpc-port', 'off']);
    expect(lines.some((l) => l.startsWith('eventlog grpc'))).toBe(false);
    const refused = spawnSync(process.execPath, [cli, ...base(tempDir()), '--host', '0.0.0.0', '--grpc-insecure'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--grpc-insecure: .*loopback only/);
  });
});

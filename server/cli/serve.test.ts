import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './main.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-serve-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('homeport serve (in process)', () => {
  // Whoever reads the listener lines may stop the server at once (tests, the desktop shell, scripts): a signal arriving
  // after the lines but before the handlers would meet the default action and end the process without a clean close.
  it('listens for stop signals before it prints a listener line', async () => {
    const out: string[] = [];
    let linesBeforeListening: number | null = null;
    let stop!: (signal: string) => void;
    const stopSignal = new Promise<string>((resolve) => (stop = resolve));
    const io = {
      out: (line: string) => {
        out.push(line);
        if (line.startsWith('data directory')) stop('SIGTERM');
      },
      err: () => {},
      env: {},
      get stopSignal() {
        linesBeforeListening ??= out.length;
        return stopSignal;
      },
    };
    const args = ['serve', '--data-dir', dataDir, '--http-port', '0', '--tcp-port', '0', '--tcp-tls-port', 'off'];
    const code = await runCli([...args, '--grpc-port', 'off', '--log-level', 'warn'], io);
    expect(code).toBe(0);
    expect(out.at(-1)).toBe(`data directory ${dataDir}`);
    expect(linesBeforeListening).toBe(0);
  });
});

/** Test support: `homeport serve` as a child process (for SIGKILL tests), ready once its TCP port is known. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..');

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  exited: Promise<void>;
}

export function startServeProcess(dataDir: string, extraArgs: string[] = []): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [
      'bin/homeport.js',
      'serve',
      '--data-dir',
      dataDir,
      '--tcp-port',
      '0',
      '--http-port',
      '0',
      '--tcp-tls-port',
      'off',
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /eventlog tcp listening on (\S+):(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[2]), exited });
    });
    child.once('exit', (code) =>
      reject(new Error(`homeport serve exited with ${code} before listening\n${out}\n${err}`)),
    );
  });
}

export async function killServeProcess(server: ServeProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export interface RunningHomeport {
  httpUrl: string;
  tcpPort: number;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, '..');

/** The UI's owner in these tests: an event-log administrator with a password of its own (the default one only allows changing it). */
export const OWNER = { name: 'owner', password: 'owner-e2e-password' };

/** Adds the owner account through the real CLI, which works while `serve` runs. */
function addOwner(dataDir: string): void {
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, 'bin', 'homeport.js'),
      'eventlog',
      'users',
      'add',
      OWNER.name,
      '--group',
      '$admins',
      '--password-stdin',
      '--data-dir',
      dataDir,
    ],
    {
      cwd: root,
      input: `${OWNER.password}\n`,
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`could not add the owner account: ${r.stderr}`);
}

/** Starts the real CLI (`homeport serve`) on free ports in a fresh data directory and waits for its listener lines. */
export async function startHomeportProcess(extraArgs: string[] = []): Promise<RunningHomeport> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-e2e-'));
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'bin', 'homeport.js'),
      'serve',
      '--data-dir',
      dataDir,
      '--http-port',
      '0',
      '--tcp-port',
      '0',
      '--tcp-tls-port',
      'off',
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const lines = readline.createInterface({ input: child.stdout! });
  let httpUrl = '';
  let tcpPort = 0;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`homeport exited with ${code}: ${stderr}`)));
    lines.on('line', (line) => {
      const http = /^http listening on (\S+)/.exec(line);
      const tcp = /^eventlog tcp listening on \S+:(\d+)/.exec(line);
      if (http) httpUrl = http[1];
      if (tcp) tcpPort = Number(tcp[1]);
      if (httpUrl && tcpPort) resolve();
    });
  });
  addOwner(dataDir);
  return {
    httpUrl,
    tcpPort,
    dataDir,
    child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

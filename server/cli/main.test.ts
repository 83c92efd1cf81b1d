import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { isDataDirLocked } from '../lock.ts';
import { FREE_PORT_FLAGS } from '../testing/serve-process.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const cli = path.join(root, 'bin', 'homeport.js');
const dirs: string[] = [];
const children: ChildProcess[] = [];
/** What each served child wrote to stderr, for the failure message when it dies of a signal. */
const stderrOf = new WeakMap<ChildProcess, () => string>();
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-cli-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    cwd: root,
    timeout: 30_000,
  });
}

/** Starts `homeport serve` and resolves with its stdout lines once every listener line is printed. */
function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, [cli, 'serve', ...FREE_PORT_FLAGS, '--log-level', 'warn', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  stderrOf.set(child, () => stderr);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `serve printed no "data directory" line within 60 s; stdout: ${lines.join(' | ')}; stderr: ${stderr}`,
          ),
        ),
      60_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('data directory')) {
        clearTimeout(timer);
        resolve({ child, lines });
      }
    });
  });
}

/**
 * The exit code of a child, once it has exited; fails when a signal ended it. Bounded: a child still running
 * after `ms` is killed and reported, so a stuck shutdown fails the test with its stderr instead of hanging it.
 */
function exitOf(child: ChildProcess, ms = 60_000): Promise<number> {
  const endedBy = (signal: string) =>
    new Error(`pid ${child.pid} ended by ${signal}; stderr: ${stderrOf.get(child)?.() ?? ''}`);
  if (child.signalCode !== null) return Promise.reject(endedBy(child.signalCode));
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pid ${child.pid} did not exit within ${ms / 1000} s`));
    }, ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // A signal ending the child (a crash in shutdown, say) fails with the signal's name and what it printed.
      if (signal !== null) reject(endedBy(signal));
      else resolve(code ?? -1);
    });
  });
}

describe('homeport CLI', () => {
  it('documents every command and flag in --help', () => {
    const r = runCli(['--help']);
    expect(r.status).toBe(0);
    for (const word of [
      'serve',
      '--data-dir',
      '--host',
      '--http-port',
      '--tcp-port',
      '--tcp-tls-port',
      '--domain',
      'HOMEPORT_DATA_DIR',
    ]) {
      expect(r.stdout).toContain(word);
    }
  });

  it.each([
    [['serve', '--bogus'], /Unknown option '--bogus'/],
    [['serve', '--http-port', '70000'], /--http-port must be a port number/],
    [['serve', '--tcp-port', 'abc'], /--tcp-port must be a port number/],
    [['serve', '--run-projections', 'some'], /--run-projections must be one of none, system, all/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ])('fails %j with one line and exit code 2', (args, message) => {
    const r = runCli([...args, '--data-dir', tempDir()]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('refuses an unwritable data directory with exit code 2', () => {
    const file = path.join(tempDir(), 'not-a-dir');
    fs.writeFileSync(file, '');
    const r = runCli(['serve', '--data-dir', path.join(file, 'data'), '--http-port', '0', '--tcp-port', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/data directory .* is not writable/);
  });

  it('serves, prints one line per listener, and exits 0 on SIGTERM', async () => {
    const dataDir = tempDir();
    const { child, lines } = await serve([], { HOMEPORT_DATA_DIR: dataDir });
    expect(lines.some((l) => /^eventlog tcp listening on 127\.0\.0\.1:\d+$/.test(l))).toBe(true);
    expect(lines.some((l) => /^eventlog tls listening on 127\.0\.0\.1:\d+$/.test(l))).toBe(true);
    const http = lines.find((l) => l.startsWith('http listening on '))!.slice('http listening on '.length);
    expect((await fetch(`${http}/`)).status).toBe(200);
    expect(lines).toContain(`data directory ${dataDir}`);
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
    expect(isDataDirLocked(dataDir)).toBe(false);
  });

  it('keeps a second server off a data directory in use, but not a second directory', async () => {
    const dataDir = tempDir();
    const first = await serve(['--data-dir', dataDir]);
    const second = runCli(['serve', '--data-dir', dataDir, ...FREE_PORT_FLAGS]);
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(/in use by another Homeport server/);
    const other = await serve(['--data-dir', tempDir()]);
    first.child.kill('SIGINT');
    other.child.kill('SIGINT');
    expect(await exitOf(first.child)).toBe(0);
    expect(await exitOf(other.child)).toBe(0);
    // Three server starts (two of them making TLS keys): on a loaded 2-core machine this takes well over the default minute.
  }, 180_000);

  it('takes a data directory over at once after its server was SIGKILLed, and names the holder while it runs', async () => {
    const dataDir = tempDir();
    const first = await serve(['--data-dir', dataDir]);
    const refused = runCli(['serve', '--data-dir', dataDir, ...FREE_PORT_FLAGS]);
    expect(refused.stderr).toContain(`(pid ${first.child.pid})`);
    const killed = new Promise((r) => first.child.once('exit', (_code, signal) => r(signal)));
    first.child.kill('SIGKILL');
    expect(await killed).toBe('SIGKILL');
    // The operating system dropped the dead server's lock with its process: nothing stale to judge.
    expect(isDataDirLocked(dataDir)).toBe(false);
    const second = await serve(['--data-dir', dataDir]);
    expect(second.lines).toContain(`data directory ${dataDir}`);
    const url = second.lines.find((l) => l.startsWith('http listening on '))!.slice('http listening on '.length);
    expect((await fetch(`${url}/`)).status).toBe(200);
    const stopped = new Promise<string>((r) => second.child.once('exit', (code, signal) => r(`${code} ${signal}`)));
    second.child.kill('SIGTERM');
    expect(await stopped).toBe('0 null');
  });

  it('lets exactly one of several processes racing for a fresh data directory have it', async () => {
    const dataDir = tempDir();
    const racer = `
      import { acquireDataDirLock } from ${JSON.stringify(path.join(root, 'server', 'lock.ts'))};
      process.stdin.once('data', () => {
        try { acquireDataDirLock(${JSON.stringify(dataDir)}); console.log('got it'); setTimeout(() => {}, 1500); }
        catch (err) { console.log(err.code); }
      });`;
    const racers = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['--input-type=module', '-e', racer], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    const outputs = racers.map(
      (child) =>
        new Promise<string>((resolve) => {
          let out = '';
          child.stdout!.on('data', (d) => (out += d));
          child.once('exit', () => resolve(out.trim()));
        }),
    );
    // Let every process load first, then start them together.
    await new Promise((r) => setTimeout(r, 1500));
    for (const child of racers) child.stdin!.end('go');
    const results = await Promise.all(outputs);
    expect(results.filter((r) => r === 'got it')).toHaveLength(1);
    expect(results.filter((r) => r === 'HOMEPORT_DATA_DIR_LOCKED')).toHaveLength(5);
  });
});

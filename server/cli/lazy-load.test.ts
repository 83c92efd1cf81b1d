import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM build script without type declarations
import { buildServer } from '../../scripts/build-server.mjs';
import { FREE_PORT_FLAGS } from '../testing/serve-process.ts';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'bin/homeport.js');
// Reports every module the process loads (file URLs) on stderr, one per line.
const recordLoads = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; registerHooks({ load(url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED ' + url + '\\n'); return next(url, context); } });",
)}`;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The files (relative to the repository) a CLI invocation loaded, and its exit code. */
function loadedBy(args: string[]): { status: number | null; files: string[]; errors: string } {
  const r = spawnSync(process.execPath, ['--import', recordLoads, cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, ...splitLoads(r.stderr) };
}

function splitLoads(stderr: string): { files: string[]; errors: string } {
  const lines = stderr.split('\n');
  const files = lines
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => path.relative(root, new URL(l.slice('LOADED '.length)).pathname));
  return { files, errors: lines.filter((l) => !l.startsWith('LOADED ')).join('\n') };
}

/** Packages (node_modules/<name>) among loaded files. */
function packages(files: string[]): Set<string> {
  return new Set(files.flatMap((f) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1] ?? []));
}

/**
 * Starts `homeport serve` (from the sources unless `env` says otherwise), asks its HTTP side for each of `paths`
 * (the instance first), stops it; what it loaded until then.
 */
async function loadedByServe(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  paths: string[] = [],
): Promise<{ status: number | null; files: string[]; errors: string; answers: number[] }> {
  const child = spawn(
    process.execPath,
    ['--import', recordLoads, cli, 'serve', '--data-dir', dataDir, ...FREE_PORT_FLAGS, '--grpc-port', '0'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const httpUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /http listening on (\S+)[\s\S]*data directory/.exec(out);
      if (m) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${out}${err}`)));
  });
  const instance = await fetch(`${httpUrl}/api/v1/instance`);
  expect(instance.status).toBe(200);
  const answers: number[] = [];
  for (const p of paths)
    answers.push((await fetch(`${httpUrl}${p}`, { headers: { accept: 'application/jrd+json' } })).status);
  child.kill('SIGTERM');
  const status = await exited;
  return { status, ...splitLoads(err), answers };
}

describe('the CLI loads only what a command needs', () => {
  it('prints --help without loading any subsystem or package', () => {
    const { status, files, errors } = loadedBy(['--help']);
    expect(status, errors).toBe(0);
    expect(files).toContain('server/cli/main.ts');
    const heavy = files.filter(
      (f) =>
        f.includes('node_modules/') || /^server\/(social|eventlog|http|db|backup)\//.test(f) || f === 'server/start.ts',
    );
    expect(heavy).toEqual([]);
  });

  it('runs an event-log admin command without loading the social server', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-lazy-'));
    dirs.push(dir);
    const { status, files, errors } = loadedBy([
      'eventlog',
      'users',
      'add',
      'reader',
      '--password',
      'secret-reader',
      '--data-dir',
      dir,
    ]);
    expect(status, errors).toBe(0);
    expect(files).toContain('server/eventlog/index.ts');
    expect(files.filter((f) => f.startsWith('server/social/') || f.includes('node_modules/@fedify/'))).toEqual([]);
  });

  it('serves without loading what only some requests need (mail, push, audio, replication clients, schemas, gRPC protos, Fedify, sharp)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-lazy-'));
    dirs.push(dir);
    // Opening social.db the first time makes its keys (web-push makes the VAPID pair); a warm directory's start is measured.
    expect(loadedBy(['settings', 'get', 'registrations', '--data-dir', dir]).status).toBe(0);
    const { status, files, errors } = await loadedByServe(dir);
    expect(status, errors).toBe(0);
    const loaded = packages(files);
    expect(loaded.has('fastify'), 'the hook sees packages').toBe(true);
    const needless = [
      'nodemailer',
      'web-push',
      'music-metadata',
      '@kurrent/kurrentdb-client',
      'node-eventstore-client',
      'ajv', // route schemas compile at their first request (server/http/lazy-schema-compilers.ts)
      '@grpc/proto-loader', // gRPC service definitions load with the first gRPC connection
      '@fedify/fedify', // built at the first federation use (social/federation/index.ts)
      '@fedify/vocab',
      'sharp', // images are read at the first upload or favicon (social/media/sharp.ts)
      '@js-temporal/polyfill', // Fedify's, loaded with it
    ];
    expect(needless.filter((p) => loaded.has(p))).toEqual([]);
  }, 120_000);

  it('runs the prebuilt bundle when it is current: serves from dist/server alone, Fedify still loading at its first use', async () => {
    await buildServer();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-lazy-'));
    dirs.push(dir);
    const bundleEnv = { ...process.env, HOMEPORT_FROM_SOURCE: '0' };
    expect(
      spawnSync(process.execPath, [cli, 'settings', 'get', 'registrations', '--data-dir', dir], { env: bundleEnv })
        .status,
    ).toBe(0);
    const { status, files, errors, answers } = await loadedByServe(dir, bundleEnv, [
      '/.well-known/webfinger?resource=acct:nobody@localhost',
    ]);
    expect(status, errors).toBe(0);
    expect(files).toContain('dist/server/homeport.mjs');
    expect(files.filter((f) => f.startsWith('server/'))).toEqual([]);
    // WebFinger is Fedify's: its chunk and packages load for it, and it answers (no such account here).
    expect(answers).toEqual([404]);
    expect(packages(files).has('@fedify/fedify')).toBe(true);
  }, 120_000);
});

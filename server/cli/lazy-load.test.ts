import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

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
  const files = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('LOADED '))
    .map((l) => path.relative(root, new URL(l.slice('LOADED '.length)).pathname));
  const errors = r.stderr
    .split('\n')
    .filter((l) => !l.startsWith('LOADED '))
    .join('\n');
  return { status: r.status, files, errors };
}

describe('the CLI loads only what a command needs', () => {
  it('prints --help without loading any subsystem or package', () => {
    const { status, files, errors } = loadedBy(['--help']);
    expect(status, errors).toBe(0);
    expect(files).toContain('server/cli/main.ts');
    const heavy = files.filter(
      (f) =>
        f.startsWith('node_modules/') ||
        /^server\/(social|eventlog|http|db|backup)\//.test(f) ||
        f === 'server/start.ts',
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
    expect(files.filter((f) => f.startsWith('server/social/') || f.startsWith('node_modules/@fedify/'))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.join(import.meta.dirname, 'homeport.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-malloc-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
// Loaded into every Node image the command runs (NODE_OPTIONS): each reports its pid and its malloc tunables.
const probe = path.join(dir, 'probe.cjs');
fs.writeFileSync(probe, 'process._rawDebug("image " + process.pid + " " + (process.env.GLIBC_TUNABLES || ""));\n');

/** The Node images `homeport <args>` ran, in order: pid and GLIBC_TUNABLES of each. */
function images(args: string[]): string[][] {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, NODE_OPTIONS: `--require=${probe}`, GLIBC_TUNABLES: '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status).toBe(0);
  return [...run.stderr.matchAll(/^image (\d+) (.*)$/gm)].map((m) => [m[1], m[2]]);
}

describe('homeport serve on glibc', () => {
  // Without a fixed trim threshold glibc raised its own up to 64 MiB and kept that much free memory at the top of
  // each of a dozen malloc arenas: the soak's RSS grew 18 MB in one minute with no more memory in use.
  it('starts itself once more, same pid, with a fixed malloc trim threshold', () => {
    const [first, second, ...more] = images(['serve', '--help']);
    expect(first[1]).toBe('');
    expect(second).toEqual([first[0], 'glibc.malloc.trim_threshold=131072']);
    expect(more).toEqual([]);
  });

  it('leaves the other commands as they start', () => {
    expect(images(['--help'])).toHaveLength(1);
  });
});

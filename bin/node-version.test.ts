import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from './node-version.js';

describe('Node.js version check of the homeport command', () => {
  it('names the version it needs and the one it found', () => {
    expect(nodeVersionProblem('v20.20.2')).toBe('Homeport needs Node.js 22.12 or newer (found v20.20.2)');
    expect(nodeVersionProblem('v22.11.0')).toBe('Homeport needs Node.js 22.12 or newer (found v22.11.0)');
    expect(nodeVersionProblem('v22.12.0')).toBeNull();
    expect(nodeVersionProblem('v24.1.0')).toBeNull();
  });

  it('stops an old Node.js with that message and exit code 1', () => {
    // The machine's own Node.js, when it is older, is the real case; else fake an old version before the check runs.
    const bin = path.join(import.meta.dirname, 'homeport.js');
    const fake = `Object.defineProperty(process, 'version', { value: 'v20.1.0' }); await import(${JSON.stringify(bin)});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', fake, '--', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('Homeport needs Node.js 22.12 or newer (found v20.1.0)');
    expect(fs.existsSync(bin)).toBe(true);
  });
});

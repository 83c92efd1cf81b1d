import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentServerBundle } from './server-bundle.js';

let root: string;
const at = (file: string, seconds: number) => fs.utimesSync(path.join(root, file), seconds, seconds);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bundle-choice-'));
  fs.mkdirSync(path.join(root, 'dist', 'server'), { recursive: true });
  fs.mkdirSync(path.join(root, 'server'));
  fs.writeFileSync(path.join(root, 'server', 'a.ts'), 'export {};\n');
  fs.writeFileSync(path.join(root, 'dist', 'server', 'homeport.mjs'), 'export {};\n');
  fs.writeFileSync(
    path.join(root, 'dist', 'server', 'manifest.json'),
    JSON.stringify({ entry: 'homeport.mjs', sources: ['server/a.ts'] }),
  );
  at('server/a.ts', 1_000);
  at('dist/server/manifest.json', 2_000);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('which server `homeport` runs', () => {
  it('runs the bundle when it was built after every source it holds', () => {
    expect(currentServerBundle(root, {})).toBe(path.join(root, 'dist', 'server', 'homeport.mjs'));
  });

  it('runs the sources when one of them changed after the build (a stale bundle would run old code)', () => {
    at('server/a.ts', 3_000);
    expect(currentServerBundle(root, {})).toBeNull();
  });

  it('runs the sources when one of them is gone, when the build left no manifest, or when asked to', () => {
    expect(currentServerBundle(root, { HOMEPORT_FROM_SOURCE: '1' })).toBeNull();
    fs.rmSync(path.join(root, 'server', 'a.ts'));
    expect(currentServerBundle(root, {})).toBeNull();
    fs.rmSync(path.join(root, 'dist', 'server', 'manifest.json'));
    expect(currentServerBundle(root, {})).toBeNull();
  });
});

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM build script without type declarations
import { mainBundleOptions } from '../scripts/build-electron.mjs';

const root = path.resolve(import.meta.dirname, '..');

describe('Electron main-process bundle', () => {
  it('runs the bundled server from electron/dist: protocol schemas found (a gRPC call answers), UI served', async () => {
    // A folder of its own: the bundle is code-split, its chunks beside the entry.
    const outDir = path.join(root, 'electron', 'dist', `bundle-smoke-${process.pid}`);
    const out = path.join(outDir, 'main.mjs');
    try {
      await build({
        ...mainBundleOptions(path.join(root, 'electron', 'bundle-smoke-entry.ts'), out),
        sourcemap: false,
        absWorkingDir: root,
      });
      const r = spawnSync(process.execPath, [out], {
        cwd: fs.mkdtempSync(path.join(root, 'electron', 'dist', 'cwd-')),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const result = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(result).toEqual({
        status: 200,
        servesUi: true,
        grpcStatus: '0',
        listeners: ['eventlog-tcp', 'eventlog-grpc', 'http'],
      });
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
      for (const d of fs.readdirSync(path.join(root, 'electron', 'dist')))
        if (d.startsWith('cwd-')) fs.rmSync(path.join(root, 'electron', 'dist', d), { recursive: true, force: true });
    }
  });
});

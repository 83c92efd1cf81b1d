import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SANDBOX_PACKAGES, unpackedPath } from './sandbox.ts';

/**
 * Packaged builds: the sandbox worker loads QuickJS and its .wasm from real files, so electron-builder must
 * unpack those packages (and what they require) from app.asar, and the worker must be given those paths.
 */

const root = path.resolve(import.meta.dirname, '../../../..');
const require = createRequire(import.meta.url);

/** The package and every package it depends on, transitively, as found in node_modules. */
function dependencyClosure(name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name)) return seen;
  seen.add(name);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8'));
  for (const dep of Object.keys(manifest.dependencies ?? {})) dependencyClosure(dep, seen);
  return seen;
}

describe('the projections sandbox in a packaged app', () => {
  it('electron-builder.yml unpacks every package the sandbox worker loads, with their dependencies', () => {
    const config = parse(fs.readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as { asarUnpack: string[] };
    const unpacked = config.asarUnpack.map((pattern) => pattern.replace(/\/\*\*$/, '/'));
    const packages = new Set<string>();
    for (const name of SANDBOX_PACKAGES) dependencyClosure(name, packages);
    expect([...packages].sort()).toEqual([
      '@jitl/quickjs-ffi-types',
      '@jitl/quickjs-wasmfile-release-sync',
      'quickjs-emscripten-core',
    ]);
    for (const name of packages) {
      const file = `node_modules/${name}/package.json`;
      expect(
        unpacked.some((prefix) => file.startsWith(prefix)),
        `${name} is not in asarUnpack`,
      ).toBe(true);
    }
    // The wasm sits in the variant package, so it is unpacked with it.
    const wasm = path.join(path.dirname(require.resolve(SANDBOX_PACKAGES[1])), 'emscripten-module.wasm');
    expect(fs.existsSync(wasm)).toBe(true);
  });

  it('gives the worker the unpacked copies when the modules resolve into app.asar', () => {
    expect(unpackedPath('/opt/Homeport/resources/app.asar/node_modules/quickjs-emscripten-core/dist/index.js')).toBe(
      '/opt/Homeport/resources/app.asar.unpacked/node_modules/quickjs-emscripten-core/dist/index.js',
    );
    expect(unpackedPath('C:\\Homeport\\resources\\app.asar\\node_modules\\@jitl\\x\\index.js')).toBe(
      'C:\\Homeport\\resources\\app.asar.unpacked\\node_modules\\@jitl\\x\\index.js',
    );
    const unchanged = [
      '/opt/Homeport/resources/app.asar.unpacked/node_modules/a/index.js',
      '/home/me/homeport/node_modules/quickjs-emscripten-core/dist/index.js',
    ];
    for (const p of unchanged) expect(unpackedPath(p)).toBe(p);
  });
});

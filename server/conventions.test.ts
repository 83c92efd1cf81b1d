import fs from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { KNOWN_REACH_INS } from './conventions.known-reach-ins.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SCANNED = ['server', 'electron', 'bench'];
/** Folders holding several subsystems: each folder inside them is a subsystem of its own. */
const NESTING = ['server', 'server/eventlog', 'server/social'];

function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Tests, and the test bodies that run inside network namespaces. */
const isTest = (file: string) => /\.(test|netns)\.ts$/.test(file);
const inTesting = (file: string) => file.split('/').includes('testing');

/**
 * The subsystem folders holding a file, outermost first: `server/<name>`, `server/eventlog/<name>`,
 * `server/social/<name>`. A `testing/` folder belongs to the subsystem around it.
 */
function subsystemsOf(file: string): string[] {
  const parts = file.split('/');
  const folders: string[] = [];
  for (let i = 1; i < parts.length - 1; i++) {
    const parent = parts.slice(0, i).join('/');
    if (NESTING.includes(parent) && parts[i] !== 'testing') folders.push(`${parent}/${parts[i]}`);
  }
  return folders;
}

/** Relative imports (static, `export … from`, literal dynamic, `import type`) of a file, as repository paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const { module } = parseSync(file, text);
  const specifiers = [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.flatMap((entry) => entry.moduleRequest?.value ?? [])),
    ...module.dynamicImports.map((i) => text.slice(i.moduleRequest.start + 1, i.moduleRequest.end - 1)),
  ];
  return specifiers
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
}

/**
 * An import reaches in when it enters a subsystem folder the importer is outside of, at a file other than that
 * folder's `index.ts`. `testing/` folders may reach anywhere inside their own outermost subsystem.
 */
function reachesIn(importer: string, imported: string): boolean {
  const privileged = inTesting(importer) ? subsystemsOf(importer)[0] : undefined;
  if (privileged && imported.startsWith(`${privileged}/`)) return false;
  const entered = subsystemsOf(imported).find((folder) => !importer.startsWith(`${folder}/`));
  return entered !== undefined && imported !== `${entered}/index.ts`;
}

/** Every reach-in of the non-test files, as `importer -> imported`. */
function reachIns(): string[] {
  const found = SCANNED.flatMap(walk)
    .filter((importer) => !isTest(importer))
    .flatMap((importer) =>
      importsOf(importer)
        .filter((imported) => reachesIn(importer, imported))
        .map((imported) => `${importer} -> ${imported}`),
    );
  return [...new Set(found)].sort();
}

describe('subsystem boundaries', () => {
  it('imports another subsystem only through its index.ts', () => {
    const found = reachIns();
    const added = found.filter((r) => !KNOWN_REACH_INS.includes(r));
    const gone = KNOWN_REACH_INS.filter((r) => !found.includes(r));
    if (found.length > 0) console.log(`${found.length} reach-ins past an index.ts:\n${found.join('\n')}`);
    expect(added, 'new reach-ins: import from the subsystem’s index.ts instead').toEqual([]);
    expect(gone, 'fixed reach-ins: remove them from KNOWN_REACH_INS').toEqual([]);
  });

  it('tells a reach-in from an import through an index.ts or within a folder', () => {
    expect(reachesIn('server/start.ts', 'server/social/store/accounts.ts')).toBe(true);
    expect(reachesIn('server/start.ts', 'server/social/store/index.ts')).toBe(true);
    expect(reachesIn('server/start.ts', 'server/social/index.ts')).toBe(false);
    expect(reachesIn('server/social/api/x.ts', 'server/social/store/accounts.ts')).toBe(true);
    expect(reachesIn('server/social/api/x.ts', 'server/social/store/index.ts')).toBe(false);
    expect(reachesIn('server/social/api/x.ts', 'server/social/context.ts')).toBe(false);
    expect(reachesIn('server/social/store/a.ts', 'server/social/store/b.ts')).toBe(false);
    expect(reachesIn('server/start.ts', 'server/config.ts')).toBe(false);
    expect(reachesIn('bench/run.ts', 'server/eventlog/tcp/server.ts')).toBe(true);
    expect(reachesIn('server/social/testing/harness.ts', 'server/social/store/accounts.ts')).toBe(false);
    expect(reachesIn('server/social/testing/harness.ts', 'server/eventlog/store/store.ts')).toBe(true);
    expect(reachesIn('server/eventlog/grpc/testing/raw.ts', 'server/eventlog/store/store.ts')).toBe(false);
  });
});

// Subsystem boundaries: which imports reach past a subsystem's `index.ts`. Shared by the conventions test
// (server/conventions.test.ts), which forbids them, and the codemod that routes them through the index
// (scripts/fix-reach-ins.ts).
import fs from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';

export const ROOT = path.resolve(import.meta.dirname, '..');
/** The folders whose non-test files are checked. */
export const SCANNED = ['server', 'electron', 'bench'];
/** Folders holding several subsystems: each folder inside them is a subsystem of its own. */
const NESTING = ['server', 'server/eventlog', 'server/social'];

/** The `.ts` files under a folder, as repository paths. */
export function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Tests, and the test bodies that run inside network namespaces. */
export const isTest = (file: string) => /\.(test|netns)\.ts$/.test(file);
/**
 * Social migrations are frozen byte for byte once merged (`migrations/merged.sha256`), their imports included: a
 * rule that comes later cannot ask for an edit, so migration files are not scanned (nor rewritten by the codemod).
 */
const isFrozenMigration = (file: string) => /^server\/social\/migrations\/\d{3}-[^/]+\.ts$/.test(file);
export const inTesting = (file: string) => file.split('/').includes('testing');

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

/** The repository path a relative specifier of a file names. */
export const resolve = (file: string, spec: string) =>
  path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));

/** Relative imports (static, `export … from`, literal dynamic, `import type`) of a file, as repository paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const { module } = parseSync(file, text);
  const specifiers = [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.flatMap((entry) => entry.moduleRequest?.value ?? [])),
    ...module.dynamicImports.map((i) => text.slice(i.moduleRequest.start + 1, i.moduleRequest.end - 1)),
  ];
  return specifiers.filter((spec) => spec.startsWith('.')).map((spec) => resolve(file, spec));
}

/**
 * The `index.ts` an import must go through, or undefined when it may go where it goes. An import reaches in when
 * it enters a subsystem folder the importer is outside of, at a file other than that folder's `index.ts`; test
 * support (a file in a `testing/` folder) has its own face, that folder's `index.ts`. `testing/` folders may reach
 * anywhere inside their own outermost subsystem.
 */
export function faceFor(importer: string, imported: string): string | undefined {
  const privileged = inTesting(importer) ? subsystemsOf(importer)[0] : undefined;
  if (privileged && imported.startsWith(`${privileged}/`)) return undefined;
  const entered = subsystemsOf(imported).find((folder) => !importer.startsWith(`${folder}/`));
  if (entered === undefined) return undefined;
  const testing = imported.match(/^(.*?\/testing)\//);
  const face = testing && testing[1].startsWith(`${entered}/`) ? `${testing[1]}/index.ts` : `${entered}/index.ts`;
  return imported === face ? undefined : face;
}

export const reachesIn = (importer: string, imported: string) => faceFor(importer, imported) !== undefined;

/** Every reach-in of the non-test files, as `importer -> imported`. */
export function reachIns(): string[] {
  const found = SCANNED.flatMap(walk)
    .filter((importer) => !isTest(importer) && !isFrozenMigration(importer))
    .flatMap((importer) =>
      importsOf(importer)
        .filter((imported) => reachesIn(importer, imported))
        .map((imported) => `${importer} -> ${imported}`),
    );
  return [...new Set(found)].sort();
}

// Routes every import that reaches past a subsystem's `index.ts` through that index: the index (created when the
// folder has none) re-exports what outsiders use, and the importers name the index instead. Re-runnable: run it
// after a merge (`node scripts/fix-reach-ins.ts`), then `npx biome format --write` the files it lists, and read
// what it could not do (default, namespace, side-effect and dynamic imports, two files exporting one name).
// `node scripts/fix-reach-ins.ts server/social/http` does only the imports into that folder.
import fs from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { faceFor, isTest, ROOT, resolve, SCANNED, walk } from './reach-ins.ts';

type Export = { from: string; isType: boolean };

/** Only imports into this folder, when given. */
const only = process.argv[2]?.replace(/\/$/, '');

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const exists = (file: string) => fs.existsSync(path.join(ROOT, file));

function specifier(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Names a file exports already: its own, re-exported by name, and through `export *`. */
function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  if (!exists(file) || seen.has(file)) return new Set();
  seen.add(file);
  const { module } = parseSync(file, read(file));
  const names = new Set<string>();
  for (const entry of module.staticExports.flatMap((e) => e.entries)) {
    if (entry.exportName.name) names.add(entry.exportName.name);
    else if (entry.moduleRequest?.value.startsWith('.'))
      for (const name of exportedNames(resolve(file, entry.moduleRequest.value), seen)) names.add(name);
  }
  return names;
}

/** What each index must add: index -> name -> where it comes from. */
const additions = new Map<string, Map<string, Export>>();
const problems: string[] = [];

/** Makes `face` export `name` of `file`, through the faces of nested subsystems in between. */
function expose(face: string, file: string, name: string, isType: boolean): void {
  const inner = faceFor(face, file);
  if (inner !== undefined) expose(inner, file, name, isType);
  const from = inner ?? file;
  if (exportedNames(face).has(name)) return;
  const planned = additions.get(face) ?? new Map<string, Export>();
  additions.set(face, planned);
  const before = planned.get(name);
  if (before && before.from !== from) problems.push(`${face}: ${name} from both ${before.from} and ${from}`);
  planned.set(name, { from, isType: isType && (before?.isType ?? true) });
}

const wanted = (face: string) => only === undefined || face.startsWith(`${only}/`);

type Edit = { start: number; end: number; text: string };

/** Rewrites one importer; returns whether it changed. */
function fixImporter(file: string): boolean {
  const text = read(file);
  const { module } = parseSync(file, text);
  const edits: Edit[] = [];
  const retarget = (spec: { value: string; start: number; end: number }): string | undefined => {
    if (!spec.value.startsWith('.')) return undefined;
    const target = resolve(file, spec.value);
    const face = faceFor(file, target);
    if (face === undefined || !wanted(face)) return undefined;
    edits.push({ start: spec.start, end: spec.end, text: `'${specifier(file, face)}'` });
    return target;
  };
  for (const declaration of module.staticImports) {
    const spec = declaration.moduleRequest;
    if (!spec.value.startsWith('.')) continue;
    const target = resolve(file, spec.value);
    const face = faceFor(file, target);
    if (face === undefined || !wanted(face)) continue;
    const odd = declaration.entries.filter((e) => e.importName.kind !== 'Name');
    if (odd.length > 0 || declaration.entries.length === 0) {
      problems.push(`${file}: ${odd[0]?.importName.kind ?? 'side-effect'} import of ${target}`);
      continue;
    }
    for (const entry of declaration.entries) expose(face, target, entry.importName.name as string, entry.isType);
    retarget(spec);
  }
  for (const declaration of module.staticExports) {
    const spec = declaration.entries[0]?.moduleRequest;
    if (!spec?.value.startsWith('.')) continue;
    const target = resolve(file, spec.value);
    const face = faceFor(file, target);
    if (face === undefined || !wanted(face)) continue;
    const odd = declaration.entries.filter((e) => e.importName.kind !== 'Name');
    if (odd.length > 0) {
      problems.push(`${file}: export * from ${target}`);
      continue;
    }
    for (const entry of declaration.entries) expose(face, target, entry.importName.name as string, entry.isType);
    retarget(spec);
  }
  for (const dynamic of module.dynamicImports) {
    const value = text.slice(dynamic.moduleRequest.start + 1, dynamic.moduleRequest.end - 1);
    if (value.startsWith('.') && faceFor(file, resolve(file, value)) !== undefined)
      problems.push(`${file}: dynamic import of ${resolve(file, value)}`);
  }
  if (edits.length === 0) return false;
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  fs.writeFileSync(path.join(ROOT, file), mergeImports(file, out));
  return true;
}

/** Folds the plain named imports of one module into one declaration (the rewrite leaves several per index). */
function mergeImports(file: string, text: string): string {
  const { module } = parseSync(file, text);
  const byModule = new Map<string, typeof module.staticImports>();
  for (const declaration of module.staticImports) {
    const plain = declaration.entries.length > 0 && declaration.entries.every((e) => e.importName.kind === 'Name');
    if (!plain) continue;
    const list = byModule.get(declaration.moduleRequest.value) ?? [];
    byModule.set(declaration.moduleRequest.value, [...list, declaration]);
  }
  const edits: Edit[] = [];
  for (const [value, declarations] of byModule) {
    if (declarations.length < 2) continue;
    const entries = declarations.flatMap((d) => d.entries);
    const allTypes = entries.every((e) => e.isType);
    const names = entries.map((e) => {
      const imported = e.importName.name as string;
      const local = e.localName.value;
      return `${e.isType && !allTypes ? 'type ' : ''}${imported}${local === imported ? '' : ` as ${local}`}`;
    });
    const unique = [...new Set(names)];
    const merged = `import ${allTypes ? 'type ' : ''}{ ${unique.join(', ')} } from '${value}';`;
    edits.push({ start: declarations[0].start, end: declarations[0].end, text: merged });
    for (const d of declarations.slice(1)) {
      const end = text[d.end] === '\n' ? d.end + 1 : d.end;
      edits.push({ start: d.start, end, text: '' });
    }
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** Appends the planned re-exports to each index, creating the indexes that are missing. */
function writeFaces(): string[] {
  const written: string[] = [];
  for (const [face, planned] of [...additions].sort(([a], [b]) => a.localeCompare(b))) {
    const byFile = new Map<string, { values: string[]; types: string[] }>();
    for (const [name, { from, isType }] of planned) {
      const group = byFile.get(from) ?? { values: [], types: [] };
      byFile.set(from, group);
      (isType ? group.types : group.values).push(name);
    }
    const lines: string[] = [];
    for (const [from, { values, types }] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
      const spec = specifier(face, from);
      if (values.length > 0) lines.push(`export { ${values.sort().join(', ')} } from '${spec}';`);
      if (types.length > 0) lines.push(`export type { ${types.sort().join(', ')} } from '${spec}';`);
    }
    const folder = path.posix.dirname(face);
    const before = exists(face)
      ? read(face)
      : `// The public face of ${folder}/: what code outside the folder uses of it.\n`;
    fs.writeFileSync(path.join(ROOT, face), `${before.trimEnd()}\n${lines.join('\n')}\n`);
    written.push(face);
  }
  return written;
}

const importers = SCANNED.flatMap(walk).filter((file) => !isTest(file));
const changed = importers.filter(fixImporter);
const faces = writeFaces();
console.log([...new Set([...changed, ...faces])].sort().join('\n'));
if (problems.length > 0) console.error(`\nNot rewritten (do these by hand):\n${problems.join('\n')}`);

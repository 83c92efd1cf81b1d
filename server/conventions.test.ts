import fs from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { inTesting, isTest, ROOT, reachesIn, reachIns, walk } from '../scripts/reach-ins.ts';

// ---- Who writes: routes and the CLI ask the domain; only the domain emits events; only the store speaks SQL ----

const SOCIAL = 'server/social';
type Node = { type: string; start: number; end: number; [key: string]: unknown };

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

function parse(file: string, text = read(file)): { text: string; program: Node } {
  return { text, program: parseSync(file, text).program as unknown as Node };
}

/** Every node of a tree, depth first. */
function* nodes(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const child of node) yield* nodes(child);
  else if (node && typeof node === 'object' && typeof (node as Node).type === 'string') {
    yield node as Node;
    for (const [key, value] of Object.entries(node)) if (key !== 'type') yield* nodes(value);
  }
}

/** `a.b.c` for a chain of identifiers, `this` and non-computed member accesses; null for anything else. */
function dotted(node: Node): string | null {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'ThisExpression') return 'this';
  if (node.type === 'MemberExpression' && !node.computed) {
    const object = dotted(node.object as Node);
    return object === null ? null : `${object}.${(node.property as Node).name}`;
  }
  return null;
}

/** Calls in a tree, as the dotted name of what is called (`ctx.store.lists.create`), with their offsets. */
function* calls(tree: Node): Generator<{ callee: string; start: number }> {
  for (const node of nodes(tree)) {
    if (node.type !== 'CallExpression') continue;
    const callee = dotted(node.callee as Node);
    if (callee !== null) yield { callee, start: node.start };
  }
}

const SQL_WRITE = /\b(INSERT|UPDATE|DELETE|REPLACE)\b/;

/**
 * The write methods of each store repository, by its path from `SocialStore` (`lists` -> `create`, …; a repository
 * held inside another by both names, `moderation.domainAllows`):
 * methods whose SQL inserts, updates or deletes, that open a transaction, or that call such a method of their own
 * class. Whatever else a repository has reads.
 */
function storeWriteMethods(): Map<string, Set<string>> {
  const writesByClass = new Map<string, Set<string>>();
  const fieldsByClass = new Map<string, [string, string][]>();
  for (const file of walk(`${SOCIAL}/store`).filter((f) => !isTest(f))) {
    const { text, program } = parse(file);
    for (const node of nodes(program)) {
      if (node.type !== 'ClassDeclaration') continue;
      const methods = ((node.body as Node).body as Node[]).filter((m) => m.type === 'MethodDefinition');
      const writes = new Set<string>();
      const callsOwn = new Map<string, string[]>();
      for (const method of methods) {
        const name = (method.key as Node).name as string;
        const body = method.value as Node;
        const strings = [...nodes(body)].flatMap((n) =>
          n.type === 'Literal' && typeof n.value === 'string'
            ? [n.value]
            : n.type === 'TemplateElement'
              ? [(n.value as { raw: string }).raw]
              : [],
        );
        const sqlWrites = strings.some((s) => SQL_WRITE.test(s));
        const own = [...calls(body)].map((c) => c.callee);
        if (sqlWrites || own.some((c) => /(^|\.)(core|store)\.transaction$/.test(c))) writes.add(name);
        callsOwn.set(
          name,
          own.filter((c) => /^this\.\w+$/.test(c)).map((c) => c.slice(5)),
        );
      }
      for (let grew = true; grew; ) {
        grew = false;
        for (const [name, callees] of callsOwn)
          if (!writes.has(name) && callees.some((c) => writes.has(c))) grew = writes.add(name) !== undefined;
      }
      const className = (node.id as Node).name as string;
      writesByClass.set(className, writes);
      const source = text.slice(node.start, node.end);
      fieldsByClass.set(
        className,
        [...source.matchAll(/this\.(\w+) = new (\w+)\(/g)].map(([, f, c]) => [f, c]),
      );
    }
  }
  // By path from the store: `lists`, and `moderation.domainAllows` for a repository held inside another.
  const byPath = new Map<string, Set<string>>();
  const add = (prefix: string, className: string) => {
    byPath.set(prefix, writesByClass.get(className) ?? new Set());
    for (const [field, held] of fieldsByClass.get(className) ?? [])
      if (writesByClass.has(held)) add(`${prefix}.${field}`, held);
  };
  for (const [field, className] of fieldsByClass.get('SocialStore') ?? []) add(field, className);
  return byPath;
}

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/**
 * Store writes a file makes itself: `….store.<repository>.<write>(…)`, the same through a variable holding a
 * repository (`const m = ctx.store.moderation`), and `….store.transaction(…)`. Reads through the store stay allowed
 * in routes: they only parse, read what they show, call the domain and serialize.
 */
function storeWritesIn(file: string, writes: Map<string, Set<string>>, source = read(file)): string[] {
  const { text, program } = parse(file, source);
  const aliases = new Map<string, string>();
  for (const node of nodes(program)) {
    if (node.type !== 'VariableDeclarator' || !node.init || (node.id as Node).type !== 'Identifier') continue;
    const held = dotted(node.init as Node)?.match(/(?:^|\.)store\.([\w.]+)$/);
    if (held) aliases.set((node.id as Node).name as string, held[1]);
  }
  const found: string[] = [];
  for (const { callee, start } of calls(program)) {
    // `….store.<path>.<method>`, or `<alias>.<rest of path>.<method>`.
    const viaStore = callee.match(/(?:^|\.)store\.([\w.]+)\.(\w+)$/);
    const viaAlias = callee.match(/^(\w+)((?:\.\w+)*)\.(\w+)$/);
    const aliased = viaAlias && aliases.get(viaAlias[1]);
    const repository = viaStore ? viaStore[1] : aliased ? `${aliased}${viaAlias[2]}` : undefined;
    const method = viaStore ? viaStore[2] : viaAlias?.[3];
    const write =
      /(?:^|\.)store\.transaction$/.test(callee) ||
      (repository !== undefined && method !== undefined && writes.get(repository)?.has(method));
    if (write) found.push(`${file}:${lineOf(text, start)} ${callee}`);
  }
  return found;
}

/** Domain events published by a file: `….events.emit(…)`. */
function emitsIn(file: string, source = read(file)): string[] {
  const { text, program } = parse(file, source);
  return [...calls(program)]
    .filter((c) => /(?:^|\.)events\.emit$/.test(c.callee))
    .map((c) => `${file}:${lineOf(text, c.start)} ${c.callee}`);
}

/**
 * SQL run by a file: statements prepared or executed on a database handle (`db.prepare`, `….db.exec`, `db.pragma`,
 * `….core.sql`) and any reach for the store's connection (`store.db`, `store.core.db`).
 */
function sqlIn(file: string, source = read(file)): string[] {
  const { text, program } = parse(file, source);
  const found: string[] = [];
  for (const node of nodes(program)) {
    const name = node.type === 'MemberExpression' ? dotted(node) : null;
    if (name === null) continue;
    const statement = /(?:^|\.)(db|core)\.(prepare|exec|pragma|sql|transaction|function|aggregate)$/.test(name);
    const handle = /(?:^|\.)store\.(core\.)?db$|^this\.core\.db$/.test(name);
    if (statement || handle) found.push(`${file}:${lineOf(text, node.start)} ${name}`);
  }
  return [...new Set(found)];
}

/** Expects a check to find nothing, listing what it found (`file:line callee`) when it does. */
function expectNone(found: string[], what: string) {
  expect(found, what).toEqual([]);
}

const sources = (dir: string) => walk(dir).filter((f) => !isTest(f) && !inTesting(f));
const under = (file: string, ...folders: string[]) => folders.some((d) => file.startsWith(`${SOCIAL}/${d}/`));

describe('the domain is the only writer', () => {
  it('routes (the Mastodon API and OAuth) and the CLI write through the domain, never the store', () => {
    const writes = storeWriteMethods();
    const files = [
      ...sources(`${SOCIAL}/api`),
      ...sources(`${SOCIAL}/oauth`),
      `${SOCIAL}/admin.ts`,
      ...sources('server/cli'),
    ];
    expectNone(
      files.flatMap((f) => storeWritesIn(f, writes)),
      'store writes outside the domain: call a domain service',
    );
  });

  it('only the domain emits domain events', () => {
    const files = sources(SOCIAL).filter((f) => !under(f, 'domain', 'store') && f !== `${SOCIAL}/events.ts`);
    expectNone(
      files.flatMap((f) => emitsIn(f)),
      'event emits outside the domain: emit them in the domain, inside the transaction of the change',
    );
  });

  it('only the store runs SQL', () => {
    const files = sources(SOCIAL).filter((f) => !under(f, 'store', 'migrations'));
    expectNone(
      files.flatMap((f) => sqlIn(f)),
      'SQL outside the store: add a repository method in store/',
    );
  });

  it('tells writes from reads, and SQL from a regular expression', () => {
    const writes = storeWriteMethods();
    expect(writes.get('markers')).toEqual(new Set(['set']));
    expect(writes.get('lists')?.has('create')).toBe(true);
    expect(writes.get('lists')?.has('byId')).toBe(false);
    expect(writes.get('moderation.domainAllows')?.has('add')).toBe(true);
    const route = [
      'const m = ctx.store.markers;',
      'm.set(a, "home", b); m.get(a, []); ctx.store.markers.lastReadId(a, "home");',
      'ctx.store.lists.create(a, "x"); ctx.store.transaction(() => 1);',
      'const blocks = ctx.store.moderation; blocks.domainAllows.add("x"); blocks.domainAllows.list(p);',
      'ctx.events.emit("account.updated", {}); /x/.exec(s); ctx.store.db.prepare("SELECT 1");',
    ].join('\n');
    const found = (check: (file: string) => string[]) => check('x.ts').map((f) => f.split(' ')[1]);
    expect(found((f) => storeWritesIn(f, writes, route))).toEqual([
      'm.set',
      'ctx.store.lists.create',
      'ctx.store.transaction',
      'blocks.domainAllows.add',
    ]);
    expect(found((f) => emitsIn(f, route))).toEqual(['ctx.events.emit']);
    expect(found((f) => sqlIn(f, route))).toEqual(['ctx.store.db.prepare', 'ctx.store.db']);
  });
});

describe('subsystem boundaries', () => {
  it('imports another subsystem only through its index.ts', () => {
    expect(reachIns(), 'reach-ins: import from the subsystem’s index.ts (node scripts/fix-reach-ins.ts)').toEqual([]);
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
    // Test support has its own face, its testing/ folder's index.ts.
    expect(reachesIn('bench/x.ts', 'server/eventlog/replication/testing/bulk.ts')).toBe(true);
    expect(reachesIn('bench/x.ts', 'server/eventlog/replication/testing/index.ts')).toBe(false);
    expect(reachesIn('server/social/x.ts', 'server/eventlog/store/testing/index.ts')).toBe(false);
  });
});

/**
 * Compares two V8 heap snapshots of one process (e.g. the soak's SOAK_HEAP_SNAPSHOTS=6,12): what grew between them.
 * Prints, per constructor (objects by their constructor's name, the rest by V8's node type: "(string)",
 * "(compiled code)", ...), the count, the self size and the retained size in each snapshot, the largest growths
 * first; then the single objects whose retained size grew most (a snapshot keeps an object's id for the
 * process's life, so the same Map is found in both), each with a path of retainers from the roots.
 *
 *   node --max-old-space-size=6000 bench/heapsnapshot-compare.ts <before.heapsnapshot> <after.heapsnapshot> [top=25]
 *
 * Retained sizes come from the dominator tree (Cooper, Harvey and Kennedy's iterative algorithm), weak edges
 * left out as DevTools does. Hand-written: the heap-analysis libraries on npm either drive a browser (memlab pulls
 * puppeteer) or only parse, and this needs no more than the snapshot's arrays.
 */
import fs from 'node:fs';

interface RawSnapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
    node_count: number;
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Heap {
  count: number;
  ids: Float64Array;
  selfSize: Float64Array;
  retained: Float64Array;
  /** The immediate dominator of each node (node 0, the root, is its own). */
  dominator: Int32Array;
  className: string[];
  /** A retainer of each node on a shortest path from the root (-1 for the root and the unreachable). */
  parent: Int32Array;
  parentEdgeName: string[];
}

function load(file: string): Heap {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as RawSnapshot;
  const { meta } = raw.snapshot;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) =>
    meta.node_fields.indexOf(f),
  );
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ['type', 'name_or_index', 'to_node'].map((f) =>
    meta.edge_fields.indexOf(f),
  );
  const count = raw.nodes.length / nodeFields;
  const ids = new Float64Array(count);
  const selfSize = new Float64Array(count);
  const className: string[] = new Array(count);
  const firstEdge = new Int32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    const at = n * nodeFields;
    ids[n] = raw.nodes[at + idAt];
    selfSize[n] = raw.nodes[at + sizeAt];
    const type = nodeTypes[raw.nodes[at + typeAt]];
    const name = raw.strings[raw.nodes[at + nameAt]];
    className[n] = type === 'object' || type === 'native' ? name : `(${type})`;
    firstEdge[n] = e;
    e += raw.nodes[at + edgeCountAt];
    firstEdge[n + 1] = e;
  }
  // Strong edges as arrays of targets (and their names, for the paths).
  const edgeCount = raw.edges.length / edgeFields;
  const target = new Int32Array(edgeCount);
  const strong = new Uint8Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    const at = e * edgeFields;
    target[e] = raw.edges[at + edgeToAt] / nodeFields;
    strong[e] = edgeTypes[raw.edges[at + edgeTypeAt]] === 'weak' ? 0 : 1;
  }
  const edgeName = (e: number) => {
    const type = edgeTypes[raw.edges[e * edgeFields + edgeTypeAt]];
    const nameOrIndex = raw.edges[e * edgeFields + edgeNameAt];
    return type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : String(raw.strings[nameOrIndex]);
  };

  // Depth-first postorder from the root, iteratively (the heap is far deeper than the call stack allows).
  const postorder = new Int32Array(count).fill(-1);
  const order = new Int32Array(count);
  let visited = 0;
  {
    const seen = new Uint8Array(count);
    const stack = new Int32Array(count);
    const cursor = new Int32Array(count);
    let top = 0;
    stack[0] = 0;
    cursor[0] = firstEdge[0];
    seen[0] = 1;
    while (top >= 0) {
      const n = stack[top];
      if (cursor[top] < firstEdge[n + 1]) {
        const e = cursor[top]++;
        const to = target[e];
        if (strong[e] && !seen[to]) {
          seen[to] = 1;
          stack[++top] = to;
          cursor[top] = firstEdge[to];
        }
      } else {
        postorder[n] = visited;
        order[visited++] = n;
        top--;
      }
    }
  }
  // The retainer paths: breadth first, so each is a shortest one.
  const parent = new Int32Array(count).fill(-1);
  const parentEdge = new Int32Array(count).fill(-1);
  {
    const queue = new Int32Array(count);
    const seen = new Uint8Array(count);
    seen[0] = 1;
    for (let head = 0, tail = 1; head < tail; head++) {
      const n = queue[head];
      for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++) {
        const to = target[e];
        if (!strong[e] || seen[to]) continue;
        seen[to] = 1;
        parent[to] = n;
        parentEdge[to] = e;
        queue[tail++] = to;
      }
    }
  }
  // Predecessors of each reachable node (strong edges from reachable nodes).
  const predCount = new Int32Array(count + 1);
  for (let n = 0; n < count; n++) {
    if (postorder[n] < 0) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++) if (strong[e]) predCount[target[e] + 1]++;
  }
  for (let n = 0; n < count; n++) predCount[n + 1] += predCount[n];
  const preds = new Int32Array(predCount[count]);
  const fill = predCount.slice(0, count);
  for (let n = 0; n < count; n++) {
    if (postorder[n] < 0) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e++) if (strong[e]) preds[fill[target[e]]++] = n;
  }
  // Dominators: iterate in reverse postorder until nothing changes.
  const dominator = new Int32Array(count).fill(-1);
  dominator[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (postorder[a] < postorder[b]) a = dominator[a];
      while (postorder[b] < postorder[a]) b = dominator[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = visited - 2; i >= 0; i--) {
      const n = order[i];
      let idom = -1;
      for (let p = predCount[n]; p < predCount[n + 1]; p++) {
        const pred = preds[p];
        if (dominator[pred] < 0) continue;
        idom = idom < 0 ? pred : intersect(pred, idom);
      }
      if (idom !== dominator[n]) {
        dominator[n] = idom;
        changed = true;
      }
    }
  }
  // Retained sizes: children before their dominators, i.e. in postorder.
  const retained = new Float64Array(count);
  for (let i = 0; i < visited; i++) {
    const n = order[i];
    retained[n] += selfSize[n];
    if (n !== 0) retained[dominator[n]] += retained[n];
  }
  const parentEdgeName = Array.from(parentEdge, (e) => (e < 0 ? '' : edgeName(e)));
  return { count, ids, selfSize, retained, dominator, className, parent, parentEdgeName };
}

interface ClassTotals {
  count: number;
  self: number;
  /** Retained by the class's objects that no other object of the class dominates (no double counting). */
  retained: number;
}

function byClass(heap: Heap): Map<string, ClassTotals> {
  const totals = new Map<string, ClassTotals>();
  const entry = (name: string) => {
    let t = totals.get(name);
    if (!t) totals.set(name, (t = { count: 0, self: 0, retained: 0 }));
    return t;
  };
  for (let n = 0; n < heap.count; n++) {
    if (heap.dominator[n] < 0) continue;
    const t = entry(heap.className[n]);
    t.count++;
    t.self += heap.selfSize[n];
    let d = heap.dominator[n];
    let dominatedBySame = false;
    while (d !== 0) {
      if (heap.className[d] === heap.className[n]) {
        dominatedBySame = true;
        break;
      }
      d = heap.dominator[d];
    }
    if (!dominatedBySame && n !== 0) t.retained += heap.retained[n];
  }
  return totals;
}

const path = (heap: Heap, n: number) => {
  const steps: string[] = [];
  for (let at = n; heap.parent[at] >= 0 && steps.length < 12; at = heap.parent[at]) {
    steps.push(`${heap.className[heap.parent[at]]}.${heap.parentEdgeName[at]}`);
  }
  return steps.reverse().join(' → ');
};

const [beforeFile, afterFile, topArg] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: node bench/heapsnapshot-compare.ts <before.heapsnapshot> <after.heapsnapshot> [top=25]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const MB = (bytes: number) => Math.round(bytes / 1e4) / 100;
const before = load(beforeFile);
const after = load(afterFile);
const classesBefore = byClass(before);
const classesAfter = byClass(after);
const empty: ClassTotals = { count: 0, self: 0, retained: 0 };
const rows = [...new Set([...classesBefore.keys(), ...classesAfter.keys()])].map((name) => {
  const b = classesBefore.get(name) ?? empty;
  const a = classesAfter.get(name) ?? empty;
  return {
    constructor: name.slice(0, 60),
    count: `${b.count} → ${a.count}`,
    'self MB': `${MB(b.self)} → ${MB(a.self)}`,
    'Δ self MB': MB(a.self - b.self),
    'retained MB': `${MB(b.retained)} → ${MB(a.retained)}`,
    'Δ retained MB': MB(a.retained - b.retained),
  };
});
const total = (h: Heap) => h.retained[0];
console.log(`heap reachable: ${MB(total(before))} MB → ${MB(total(after))} MB`);
console.log('constructors by growth of their self size:');
console.table(rows.sort((x, y) => y['Δ self MB'] - x['Δ self MB']).slice(0, top));
console.log('constructors by growth of their retained size:');
console.table(rows.sort((x, y) => y['Δ retained MB'] - x['Δ retained MB']).slice(0, top));

// Single objects present in both, by growth of what they retain; an object whose dominator also grew by about as
// much is its dominator's growth again, so only the deepest of such a chain is worth reading: all are listed,
// their paths tell.
const indexBefore = new Map<number, number>();
for (let n = 0; n < before.count; n++) if (before.dominator[n] >= 0) indexBefore.set(before.ids[n], n);
const grown: { n: number; delta: number; was: number }[] = [];
for (let n = 1; n < after.count; n++) {
  if (after.dominator[n] < 0) continue;
  const b = indexBefore.get(after.ids[n]);
  if (b === undefined) continue;
  const delta = after.retained[n] - before.retained[b];
  if (delta > 256 * 1024) grown.push({ n, delta, was: before.retained[b] });
}
grown.sort((x, y) => y.delta - x.delta);
console.log('objects in both snapshots by growth of their retained size:');
for (const { n, delta, was } of grown.slice(0, top)) {
  console.log(
    `+${MB(delta)} MB (${MB(was)} → ${MB(after.retained[n])}) ${after.className[n]} @${after.ids[n]}\n    ${path(after, n)}`,
  );
}

/**
 * Splits a V8 CPU profile of the server during bench:federation's inbound phase by layer: each sample goes to
 * the innermost frame of its stack that a layer claims (a SQLite statement run by the feeds' fan-out counts as
 * fan-out, JSON-LD run by Fedify's queue as Fedify), so the shares add up to the sampled busy time.
 *
 *   node bench/cpuprofile-layers.ts <file.cpuprofile> [from-s] [to-s] [per=activities] [top=0]
 *
 * With `per`, each layer's busy time is also divided by that many activities (µs each); with `top`, each
 * layer's functions with the most self time follow it. The samples are of
 * wall time while the thread was busy (a blocking fsync counts; on a loaded machine so does time off the CPU).
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** A layer claims a frame whose file (or function name, for natives) matches; the first rule matching wins. */
const LAYERS: [layer: string, file: RegExp, fn?: RegExp][] = [
  ['domain: commit (COMMIT, fsync)', /server\/db\/write-groups\.ts/, /^commit$/],
  ['domain: search index', /server\/social\/store\/search\.ts/],
  ['domain: home and tag fan-out', /server\/social\/store\/(feeds|lists)\.ts/],
  ['domain: notifications', /server\/social\/(store|domain)\/notifications?\.ts/],
  ['domain: status insert', /server\/social\/store\/(statuses|status-mentions-tags|tags|polls|emojis)\.ts/],
  [
    'domain: lookups (accounts, domain policy, follows)',
    /server\/social\/(store\/(accounts|moderation|federation|relationships|settings|account-\w+)|domain\/moderation)\.ts/,
  ],
  ['domain: events, streaming', /server\/social\/(events|streaming\/)/],
  ['inbound: sanitising HTML', /sanitize-html|htmlparser2|server\/social\/federation\/html\.ts/],
  [
    'inbound: parsing the status',
    /server\/social\/federation\/(statuses-inbound|attachments|quotes-inbound|emojis)\.ts/,
  ],
  ['inbound: listeners', /server\/social\/federation\/(inbox|inbox-plain-listener|remote|inbound-object-locks)\.ts/],
  ['domain: other', /server\/social\/domain\//],
  ['queue (table, polling, deletions)', /server\/social\/store\/fedify-(queue|kv)\.ts/],
  ['Fedify: JSON-LD', /jsonld|rdf-canonize|@digitalbazaar/],
  ['Fedify: vocab reading', /@fedify\/vocab/],
  ['Fedify: dispatch', /@fedify\/fedify|@opentelemetry|@logtape/],
  ['API reads (home timeline)', /server\/social\/(store\/timelines|entities\/|api\/|store\/status-access)/],
  [
    'HTTP: inbox intake',
    /server\/social\/federation\/(inbox-intake|inbox-handover|inbox-key-cache|inbox-verifier|routes)\.ts/,
  ],
  ['HTTP: fastify, node http', /fastify|avvio|find-my-way|light-my-request|node:_http|node:net|node:stream|undici/],
  ['commits: write groups', /server\/db\//],
  ['SQLite other', /better-sqlite3/],
];

const [file, fromArg, toArg, perArg, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpuprofile-layers.ts <file.cpuprofile> [from-s] [to-s] [per]');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

function ownLayer(node: ProfileNode): string | null {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return '(program: V8 and natives, unattributed)';
  for (const [layer, pattern, fn] of LAYERS) if (pattern.test(url) && (!fn || fn.test(functionName))) return layer;
  return null;
}

const layerOf = new Map<number, string>();
function layerOfNode(id: number): string {
  const known = layerOf.get(id);
  if (known) return known;
  const node = byId.get(id)!;
  const own = ownLayer(node);
  const up = parent.get(id);
  const layer = own ?? (up === undefined ? 'other (Node internals, timers)' : layerOfNode(up));
  layerOf.set(id, layer);
  return layer;
}

const from = Number(fromArg ?? 0) * 1e6;
const to = toArg === undefined ? Number.POSITIVE_INFINITY : Number(toArg) * 1e6;
const per = perArg ? Number(perArg) : 0;
const byLayer = new Map<string, number>();
const selfByLayer = new Map<string, Map<string, number>>();
let at = 0;
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at < from || at >= to) continue;
  const node = byId.get(profile.samples[i])!;
  if (node.callFrame.functionName === '(idle)') continue;
  const layer = layerOfNode(node.id);
  byLayer.set(layer, (byLayer.get(layer) ?? 0) + delta);
  const functions = selfByLayer.get(layer) ?? new Map<string, number>();
  const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|server)\//, '')}`;
  functions.set(name, (functions.get(name) ?? 0) + delta);
  selfByLayer.set(layer, functions);
  total += delta;
}
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled busy`);
for (const [layer, micros] of [...byLayer].sort((a, b) => b[1] - a[1])) {
  const share = `${((micros / total) * 100).toFixed(1)}%`.padStart(6);
  console.log(`${share}  ${per ? `${(micros / per).toFixed(0).padStart(5)} µs  ` : ''}${layer}`);
  const top = [...(selfByLayer.get(layer) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 0));
  for (const [name, self] of top) console.log(`          ${((self / total) * 100).toFixed(1).padStart(4)}%  ${name}`);
}

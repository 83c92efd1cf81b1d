/**
 * Runs every benchmark in turn (`npm run bench`), each in its own process so one's server and caches
 * do not colour the next. Pass names to run a subset: `node bench/run.ts eventlog-append`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const benches = fs
  .readdirSync(import.meta.dirname)
  .filter(
    (f) => f.endsWith('.ts') && !['run.ts', 'support.ts', 'soak-social.ts'].includes(f) && !f.endsWith('.test.ts'),
  )
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !benches.includes(w));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${benches.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : benches) {
  console.log(`\n##### ${name}\n`);
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, `${name}.ts`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

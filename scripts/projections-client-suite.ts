/**
 * Runs node-eventstore-client's own `test/projections_test.js` against Homeport:
 *
 *   npm run test:projections-client
 *   NES_REPO=/path/to/node-eventstore-client/.git npm run test:projections-client
 *
 * The suite is not committed: it is read from a git copy of github.com/nicdex/node-eventstore-client (by
 * default `<repo>/../.mirror/nicdex+node-eventstore-client/repo`, what `fetch` leaves) into a temporary
 * directory, beside a `lib/dist.js` that re-exports the node-eventstore-client this repository installs. The
 * file calls `https://$EVENTSTORE_HOST:2113` (port fixed), so Homeport is started in-process with its gRPC
 * port (where the HTTP projections API lives) on 2113 of a random 127.x.y.z address, free of any other
 * listener on 2113. The file is written for nodeunit (deprecated, unmaintained since 2017): the small runner
 * below gives each test what nodeunit gave it (a shared `this` with setUp, `expect`, `equal`, `ok`, `done`).
 */
import assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHomeport } from '../server/start.ts';

const SUITE_FILE = 'test/projections_test.js';
const TEST_DEADLINE_MS = 60_000;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function suiteSource(): string {
  const gitDir = process.env.NES_REPO ?? path.join(repoRoot, '..', '.mirror', 'nicdex+node-eventstore-client', 'repo');
  try {
    return execFileSync('git', ['--git-dir', gitDir, 'show', `HEAD:${SUITE_FILE}`], { encoding: 'utf8' });
  } catch (err) {
    throw new Error(
      `could not read ${SUITE_FILE} from ${gitDir} (clone github.com/nicdex/node-eventstore-client and set NES_REPO to its .git): ${(err as Error).message}`,
    );
  }
}

/** The test file beside a `lib/dist.js` shim, as it sits in its repository. */
function layOut(dir: string, source: string): string {
  fs.mkdirSync(path.join(dir, 'test'));
  fs.mkdirSync(path.join(dir, 'lib'));
  const client = require.resolve('node-eventstore-client');
  fs.writeFileSync(path.join(dir, 'lib', 'dist.js'), `module.exports = require(${JSON.stringify(client)});\n`);
  const file = path.join(dir, SUITE_FILE);
  fs.writeFileSync(file, source);
  return file;
}

type Callback = (err?: unknown) => void;
type NodeunitSuite = Record<string, (this: object, arg: unknown) => void>;

/** One nodeunit test: setUp, the test with its assertions, tearDown; resolves with the failure, if any. */
async function runTest(suite: NodeunitSuite, name: string): Promise<string | null> {
  const self = {};
  const step = (fn: ((this: object, cb: Callback) => void) | undefined) =>
    new Promise<void>((resolve, reject) => (fn ? fn.call(self, (err) => (err ? reject(err) : resolve())) : resolve()));
  try {
    await step(suite.setUp);
    let expected: number | null = null;
    let count = 0;
    const finished = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no test.done() within ${TEST_DEADLINE_MS} ms`)),
        TEST_DEADLINE_MS,
      );
      const assertion =
        <A extends unknown[]>(fn: (...args: A) => void) =>
        (...args: A) => {
          count++;
          fn(...args);
        };
      const test = {
        expect: (n: number) => {
          expected = n;
        },
        ok: assertion((value: unknown, message?: string) => assert.ok(value, message)),
        equal: assertion((a: unknown, b: unknown, message?: string) => assert.equal(a, b, message)),
        strictEqual: assertion((a: unknown, b: unknown, message?: string) => assert.strictEqual(a, b, message)),
        deepEqual: assertion((a: unknown, b: unknown, message?: string) => assert.deepEqual(a, b, message)),
        done: (err?: unknown) => {
          clearTimeout(timer);
          if (err) reject(err);
          else if (expected !== null && count !== expected)
            reject(new Error(`expected ${expected} assertions, ran ${count}`));
          else resolve();
        },
      };
      try {
        suite[name].call(self, test);
      } catch (err) {
        clearTimeout(timer);
        reject(err);
      }
    });
    await finished;
    await step(suite.tearDown);
    return null;
  } catch (err) {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
}

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-nes-suite-'));
  const bytes = crypto.randomBytes(3);
  const host = `127.${bytes[0]}.${bytes[1]}.${Math.max(1, bytes[2] % 255)}`;
  const homeport = await startHomeport({
    dataDir: path.join(dir, 'data'),
    host,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    grpcPort: 2113,
    runProjections: 'all',
    logToConsole: false,
    logLevel: 'warn',
    rendererDir: null,
  });
  try {
    process.env.EVENTSTORE_HOST = host;
    const suite = require(layOut(dir, suiteSource())) as NodeunitSuite;
    const names = Object.keys(suite).filter((k) => k !== 'setUp' && k !== 'tearDown');
    let passed = 0;
    for (const name of names) {
      const failure = await runTest(suite, name);
      if (failure === null) passed++;
      console.log(`${failure === null ? 'ok  ' : 'FAIL'} ${name}${failure === null ? '' : `\n     ${failure}`}`);
    }
    console.log(`node-eventstore-client ${SUITE_FILE}: ${passed}/${names.length} passed (Homeport on ${host}:2113)`);
    return passed === names.length && names.length > 0 ? 0 : 1;
  } finally {
    await homeport.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();

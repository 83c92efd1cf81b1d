import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module of the test runner
import { INTEGRATION, tierProblems, tiers } from './test-tiers.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A throwaway repository of the given files (path -> text). */
function repository(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tiers-'));
  made.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

describe('test tiers', () => {
  it('puts every test file of this repository in one tier, no unit test starting a process', () => {
    expect(tierProblems(ROOT)).toEqual([]);
    const { unit, integration } = tiers(ROOT);
    expect(integration).toEqual([...INTEGRATION].sort());
    expect(unit.filter((f: string) => integration.includes(f))).toEqual([]);
    expect(unit).toContain('scripts/test-tiers.test.ts');
  });

  it('finds test files in any folder, not only in the usual ones', () => {
    const dir = repository({
      'tools/new.test.ts': '',
      'server/a/b.test.tsx': '',
      'server/a/b.ts': '',
      'node_modules/x/y.test.ts': '',
      'e2e/flow.test.ts': '',
      '.stryker-tmp/sandbox-1/server/a/b.test.ts': '',
    });
    expect(tiers(dir, ['server/a/b.test.tsx'])).toEqual({
      unit: ['tools/new.test.ts'],
      integration: ['server/a/b.test.tsx'],
    });
  });

  it('flags a unit test that starts a process through test support, and a listed file that is gone', () => {
    const dir = repository({
      'server/x/direct.test.ts': "import { spawn } from 'node:child_process';",
      'server/x/through.test.ts': "import { start } from '../testing/serve.ts';",
      'server/testing/serve.ts': "export { start } from './inner.ts';",
      'server/testing/inner.ts': "import cp from 'child_process';\nexport const start = cp.spawn;",
      'server/x/browser.test.ts': "const { chromium } = await import('@playwright/test');",
      // The server's own modules run in process: one of them importing child_process does not make a test spawn.
      'server/x/in-process.test.ts': "import { backup } from '../backup.ts';",
      'server/backup.ts': "import { execFile } from 'node:child_process';",
      'server/x/listed.test.ts': "import { spawn } from 'node:child_process';",
    });
    expect(tierProblems(dir, ['server/x/listed.test.ts', 'server/x/gone.test.ts'])).toEqual([
      'server/x/gone.test.ts is listed in scripts/test-tiers.mjs but is no test file',
      'server/x/browser.test.ts is a unit test but starts a process (server/x/browser.test.ts imports @playwright/test): list it in INTEGRATION',
      'server/x/direct.test.ts is a unit test but starts a process (server/x/direct.test.ts imports node:child_process): list it in INTEGRATION',
      'server/x/through.test.ts is a unit test but starts a process (server/testing/inner.ts imports child_process): list it in INTEGRATION',
    ]);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import type { Environment } from 'vitest/runtime';

/*
 * Copied over masto.js's `test-utils/vitest-environment.ts` by run.ts. Its original reads the app and admin
 * token a global setup made with the password grant, and leases tokens of accounts `tootctl` makes in a
 * Docker container through Redis. Here everything comes from the file run.ts wrote (accounts and tokens made
 * through Homeport's admin API, the app through POST /api/v1/apps), and a lease is a directory made in a
 * folder every worker shares (mkdir is atomic), so two test files never hold the same account at once.
 */

export interface SuiteSetup {
  url: string;
  app: Record<string, unknown>;
  instance: Record<string, unknown>;
  adminToken: SuiteToken;
  tokens: SuiteToken[];
  leases: string;
}

interface SuiteToken {
  accessToken: string;
  tokenType: string;
  scope: string;
  createdAt: number;
}

/** How long an acquire waits for a free account before failing (every one leased means a leak). */
const LEASE_WAIT_MS = 120_000;

function tokenPool(setup: SuiteSetup) {
  const leasePath = (token: SuiteToken) => path.join(setup.leases, String(setup.tokens.indexOf(token)));
  const tryLease = () => setup.tokens.find((token) => tryMkdir(leasePath(token)));
  return {
    async acquire(): Promise<SuiteToken> {
      const deadline = Date.now() + LEASE_WAIT_MS;
      for (;;) {
        const token = tryLease();
        if (token) return token;
        if (Date.now() > deadline) throw new Error(`all ${setup.tokens.length} suite accounts stayed leased`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async release(token: SuiteToken): Promise<void> {
      const own = setup.tokens.find((t) => t.accessToken === token.accessToken);
      if (!own) throw new Error(`token ${token.accessToken} is not one of the suite's`);
      fs.rmdirSync(leasePath(own));
    },
  };
}

function tryMkdir(dir: string): boolean {
  try {
    fs.mkdirSync(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export default {
  name: 'homeport',
  viteEnvironment: 'ssr',
  async setup() {
    const file = process.env.HOMEPORT_MASTO_SUITE;
    if (!file) throw new Error('HOMEPORT_MASTO_SUITE names the setup file run.ts writes');
    const setup = JSON.parse(fs.readFileSync(file, 'utf8')) as SuiteSetup;
    (globalThis as Record<string, unknown>).__misc__ = {
      url: setup.url,
      app: setup.app,
      instance: setup.instance,
      adminToken: setup.adminToken,
      tokens: tokenPool(setup),
    };
    return { teardown() {} };
  },
} satisfies Environment;

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { HomeportConfig } from '../../config.ts';
import { startHomeport, type Homeport } from '../../index.ts';

/** A whole Homeport on free loopback ports in a fresh data directory (or `config.dataDir`), removed again by `close`. */
export async function startTestHomeport(
  config: Partial<HomeportConfig> = {},
): Promise<{ hp: Homeport; dataDir: string; close(): Promise<void> }> {
  // A given data directory is a restart on it; removed by `close` all the same.
  const dataDir = config.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-http-'));
  const hp = await startHomeport({
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
    ...config,
    dataDir,
  });
  return {
    hp,
    dataDir,
    async close() {
      await hp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A test Homeport for a whole test file: started before its tests, stopped after. Read `server.hp` inside
 * the tests (it is set once the file's `beforeAll` ran).
 */
export function useTestHomeport(config: Partial<HomeportConfig> = {}): { readonly hp: Homeport } {
  let started: Awaited<ReturnType<typeof startTestHomeport>> | null = null;
  beforeAll(async () => {
    started = await startTestHomeport(config);
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get hp() {
      if (!started) throw new Error('the test Homeport is not started yet (use it inside a test)');
      return started.hp;
    },
  };
}

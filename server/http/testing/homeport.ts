import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HomeportConfig } from '../../config.ts';
import { startHomeport, type Homeport } from '../../index.ts';

/** A whole Homeport on free loopback ports in a fresh data directory, removed again by `close`. */
export async function startTestHomeport(
  config: Partial<HomeportConfig> = {},
): Promise<{ hp: Homeport; dataDir: string; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-http-'));
  const hp = await startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
    ...config,
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

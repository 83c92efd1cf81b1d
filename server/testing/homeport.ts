/** A whole Homeport in this process for a test: every listener on a free port, no console logging, no UI files. */
import type { HomeportConfig } from '../config.ts';
import { startHomeport, type Homeport } from '../index.ts';

/** Starts Homeport on `dataDir` with the test defaults; `more` replaces any of them (`tcpTlsPort: null`: no TLS). */
export function startTestHomeport(dataDir: string, more: Partial<HomeportConfig> = {}): Promise<Homeport> {
  return startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: 0,
    logToConsole: false,
    rendererDir: null,
    ...more,
  });
}

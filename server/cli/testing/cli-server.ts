import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHomeport, type Homeport } from '../../index.ts';
import { runCli } from '../main.ts';

/** A Homeport running on a temporary data directory, and the CLI run in this process against it (for tests). */
export interface CliTestServer {
  hp: Homeport;
  dir: string;
  /** One CLI invocation with `--data-dir` set, with what it printed. */
  cli(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }>;
  /** Stops the server and deletes its data directory. */
  close(): Promise<void>;
}

export async function startCliTestServer(prefix: string): Promise<CliTestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `homeport-${prefix}-`));
  const hp = await startHomeport({
    dataDir: dir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
    logLevel: 'warn',
  });
  return {
    hp,
    dir,
    async cli(...args) {
      // The command runs in this process but stands for another one started later: the server's writes of this
      // turn (group commit) are on disk before it opens the database, as they would be by then.
      await hp.social.context.store.durable();
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli([...args, '--data-dir', dir], {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        env: {},
      });
      return { code, out, err };
    },
    async close() {
      await hp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

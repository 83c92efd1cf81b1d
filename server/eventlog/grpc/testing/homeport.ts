import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { afterAll, beforeAll } from 'vitest';
import { startHomeport, type Homeport } from '../../../start.ts';
import type { RunProjections } from '../../projections/index.ts';

/**
 * Tests start Homeport as `homeport serve` does (startHomeport, every listener on a free loopback port)
 * and talk to it with the official KurrentDB client.
 */
export interface GrpcTestServer {
  homeport: Homeport;
  dataDir: string;
  port: number;
  /** A connection string with credentials (admin by default). */
  connectionString(credentials?: { username: string; password: string } | null): string;
  client(credentials?: { username: string; password: string } | null): KurrentDBClient;
  close(): Promise<void>;
}

export const ADMIN = { username: 'admin', password: 'changeit' };

/** A server on a new temporary data directory, or on `dataDir` (a restart); close() deletes it. */
export async function startGrpcTestServer(
  options: { insecure?: boolean; dataDir?: string; runProjections?: RunProjections } = {},
): Promise<GrpcTestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-grpc-'));
  const homeport = await startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    grpcPort: 0,
    grpcInsecure: options.insecure ?? false,
    // Protocol tests expect a log holding only what they wrote; the projections tests turn them on.
    runProjections: options.runProjections ?? 'none',
    logToConsole: false,
    logLevel: 'warn',
    rendererDir: null,
  });
  const grpc = homeport.grpc;
  if (!grpc) throw new Error('the gRPC listener did not start');
  const clients: KurrentDBClient[] = [];
  const connectionString = (credentials: { username: string; password: string } | null = ADMIN) => {
    const auth = credentials && grpc.caFile ? `${credentials.username}:${credentials.password}@` : '';
    return grpc.connectionString.replace('kurrentdb://', `kurrentdb://${auth}`);
  };
  return {
    homeport,
    dataDir,
    port: grpc.port,
    connectionString,
    client(credentials = ADMIN) {
      const client = KurrentDBClient.connectionString(connectionString(credentials));
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.dispose().catch(() => {});
      await homeport.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One server (and an admin client) for a whole test file. */
export function useGrpcTestServer(options: { insecure?: boolean; runProjections?: RunProjections } = {}): {
  server: GrpcTestServer;
  client: KurrentDBClient;
} {
  const shared = {} as { server: GrpcTestServer; client: KurrentDBClient };
  beforeAll(async () => {
    shared.server = await startGrpcTestServer(options);
    shared.client = shared.server.client();
  });
  afterAll(async () => {
    await shared.server?.close();
  });
  return shared;
}

/** Polls `condition` until it holds; fails after a generous bound instead of hanging (no timing assertion). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

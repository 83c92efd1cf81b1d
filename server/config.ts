import os from 'node:os';
import path from 'node:path';
import { appPath } from './app-root.ts';
import type { ConnectionLimits, RunProjections, SubscriptionTcpOptions } from './eventlog/index.ts';

/** Everything `startHomeport` needs; every field but dataDir has a default. */
export interface HomeportConfig {
  dataDir: string;
  /** Interface every listener binds to. Loopback unless the owner says otherwise. */
  host: string;
  httpPort: number;
  tcpPort: number;
  /** TLS listener for the event log; null turns it off. */
  tcpTlsPort: number | null;
  /** KurrentDB gRPC listener for the event log (TLS unless grpcInsecure); null turns it off. */
  grpcPort: number | null;
  /** gRPC in cleartext without authentication (as KurrentDB's --insecure); loopback hosts only. */
  grpcInsecure: boolean;
  /** Public host[:port] of the social server (used in URLs and federation ids). */
  domain: string;
  logLevel: string;
  /** Directory holding the built renderer (index.html); null serves no UI. */
  rendererDir: string | null;
  /** Write log lines to stderr as well as the in-memory log ring. */
  logToConsole: boolean;
  /**
   * Which event-log projections run (EventStoreDB's --run-projections): `all` (default: a desktop event
   * store is a development tool), `system` (only the standard `$` projections), `none` (no subsystem).
   */
  runProjections: RunProjections;
  /** Bounds of the event-log TCP listener (connections, package size, buffers); defaults suit a desktop. */
  tcpLimits: Partial<ConnectionLimits>;
  /** Subscriptions TCP clients may hold open, per connection and in total. */
  tcpSubscriptionLimits: SubscriptionTcpOptions;
  /** A reverse proxy or tunnel sits in front: client addresses come from X-Forwarded-For. */
  trustProxy: boolean;
  /**
   * The address other servers reach this instance at (https://host): the identity of every federated id. It
   * sets `domain`; null keeps the local default (http://localhost:<port>, not reachable by other servers).
   */
  publicUrl: string | null;
  /**
   * A separate streaming base (wss://host) when a proxy routes streaming to another host name; instance
   * documents report it and streaming requests reaching the main host are redirected there. Null: same host.
   */
  streamingUrl: string | null;
  /**
   * Tests only (HOMEPORT_TEST_PRIVATE_NETWORK=1): federation may reach peers on loopback and private
   * addresses, as the multi-process tests' servers live in a network namespace of their own.
   */
  federationAllowPrivateAddress: boolean;
  /**
   * Benchmarks only (HOMEPORT_BENCH_NO_RATE_LIMIT=1): false turns off the social API's general and per-action
   * rate limits, so a load test may post faster than one person is allowed to.
   */
  socialRateLimits: boolean;
}

/** `wss://host[:port]` (or https://) → its ws/wss origin; throws with what is wrong otherwise. */
export function parseStreamingUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`the streaming URL must be like wss://streaming.example.org, got "${raw}"`);
  }
  const scheme = { 'wss:': 'wss', 'https:': 'wss', 'ws:': 'ws', 'http:': 'ws' }[url.protocol];
  if (!scheme) throw new Error(`the streaming URL must start with wss:// (or ws:// for a test), got "${raw}"`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new Error(
      `the streaming URL is an origin only, without a path, query or credentials (e.g. wss://${url.host}), got "${raw}"`,
    );
  }
  return `${scheme}://${url.host}`;
}

/** `https://host[:port]` → its origin; throws with what is wrong otherwise. */
export function parsePublicUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`the public URL must be like https://social.example.org, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error(`the public URL must start with https:// (or http:// for a test), got "${raw}"`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new Error(
      `the public URL is the server's origin only, without a path, query or credentials (e.g. https://${url.host}), got "${raw}"`,
    );
  }
  return url;
}

export const DEFAULT_PORTS = { http: 3000, tcp: 1113, tcpTls: 1115, grpc: 2113 } as const;

/** The folder Electron's app.getPath('userData') gives for an app named "homeport". */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'homeport');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'homeport');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'homeport');
}

export function defaultRendererDir(): string {
  return appPath('renderer', 'dist');
}

export function resolveConfig(partial: Partial<HomeportConfig> & { dataDir: string }): HomeportConfig {
  const host = partial.host ?? '127.0.0.1';
  const httpPort = partial.httpPort ?? DEFAULT_PORTS.http;
  return {
    host,
    httpPort,
    tcpPort: partial.tcpPort ?? DEFAULT_PORTS.tcp,
    tcpTlsPort: partial.tcpTlsPort === undefined ? DEFAULT_PORTS.tcpTls : partial.tcpTlsPort,
    // A start on a free TCP port (tests, the bundle check) takes a free gRPC port too: instances never meet on 2113.
    grpcPort: partial.grpcPort !== undefined ? partial.grpcPort : partial.tcpPort === 0 ? 0 : DEFAULT_PORTS.grpc,
    grpcInsecure: partial.grpcInsecure ?? false,
    domain: partial.publicUrl ? parsePublicUrl(partial.publicUrl).host : (partial.domain ?? `localhost:${httpPort}`),
    logLevel: partial.logLevel ?? 'info',
    rendererDir: partial.rendererDir === undefined ? defaultRendererDir() : partial.rendererDir,
    logToConsole: partial.logToConsole ?? true,
    runProjections: partial.runProjections ?? 'all',
    tcpLimits: partial.tcpLimits ?? {},
    tcpSubscriptionLimits: partial.tcpSubscriptionLimits ?? {},
    trustProxy: partial.trustProxy ?? false,
    publicUrl: partial.publicUrl ? parsePublicUrl(partial.publicUrl).origin : null,
    streamingUrl: partial.streamingUrl ? parseStreamingUrl(partial.streamingUrl) : null,
    federationAllowPrivateAddress: partial.federationAllowPrivateAddress ?? false,
    socialRateLimits: partial.socialRateLimits ?? true,
    dataDir: path.resolve(partial.dataDir),
  };
}

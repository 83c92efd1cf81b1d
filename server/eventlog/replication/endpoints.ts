/**
 * `--from` / `--to`: a data directory (the local store) or a connection string. `tcp://` and `esdb://` speak
 * the TCP protocol (node-eventstore-client); `kurrentdb://`, `kurrentdb+discover://` and `esdb+discover://`
 * speak gRPC (@kurrent/kurrentdb-client, which reads the string itself). Credentials come from the string
 * (or `--password-stdin`) and never appear in a description.
 */
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { openLocalEndpoint } from './local.ts';
import type { TcpEndpointOptions } from './tcp.ts';
import type { ReplicationSource, ReplicationTarget } from './types.ts';

export type EndpointSpec =
  | { kind: 'local'; dataDir: string; description: string }
  | ({ kind: 'tcp'; user: string | null } & TcpEndpointOptions)
  | { kind: 'grpc'; connectionString: string; description: string; user: string | null; hasPassword: boolean };

const TCP_SCHEMES = ['tcp:', 'esdb:'];
const GRPC_SCHEMES = ['kurrentdb:', 'kurrentdb+discover:', 'esdb+discover:'];
const TCP_QUERY_KEYS = ['tls', 'tlsVerifyCert', 'tlsCAFile'];
/**
 * The options @kurrent/kurrentdb-client reads from a string (compared as it compares them: case, `-` and `_`
 * ignored). It prints an unknown one to the console with the whole string, password included, so such a string
 * is refused here instead.
 */
const GRPC_QUERY_KEYS = new Set(
  [
    'tls',
    'tlsVerifyCert',
    'tlsCAFile',
    'userCertFile',
    'userKeyFile',
    'maxDiscoverAttempts',
    'connectionName',
    'defaultDeadline',
    'discoveryInterval',
    'gossipTimeout',
    'nodePreference',
    'throwOnAppendFailure',
    'keepAliveInterval',
    'keepAliveTimeout',
    'dnsDiscover',
  ].map((key) => flatCase(key)),
);

function flatCase(key: string): string {
  return key.trim().toLowerCase().replace(/[_-]/g, '');
}

export class EndpointError extends Error {}

export function parseEndpoint(raw: string): EndpointSpec {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    const dataDir = path.resolve(raw);
    return { kind: 'local', dataDir, description: dataDir };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointError('is not a valid connection string');
  }
  const scheme = url.protocol.toLowerCase();
  const user = url.username ? decodeURIComponent(url.username) : null;
  const password = url.password ? decodeURIComponent(url.password) : null;
  if (GRPC_SCHEMES.includes(scheme)) {
    for (const key of url.searchParams.keys())
      if (!GRPC_QUERY_KEYS.has(flatCase(key))) throw new EndpointError(`has an unknown option "${key}"`);
    const safe = new URL(raw);
    safe.username = '';
    safe.password = '';
    return { kind: 'grpc', connectionString: raw, description: safe.toString(), user, hasPassword: password !== null };
  }
  if (!TCP_SCHEMES.includes(scheme))
    throw new EndpointError(`has an unknown scheme ${scheme}// (tcp://, esdb://, kurrentdb://, esdb+discover://)`);
  if (!url.hostname) throw new EndpointError('names no host');
  for (const key of url.searchParams.keys())
    if (!TCP_QUERY_KEYS.includes(key))
      throw new EndpointError(`has an unknown option "${key}" (${TCP_QUERY_KEYS.join(', ')})`);
  const flag = (key: string, fallback: boolean) => {
    const v = url.searchParams.get(key);
    if (v === null) return fallback;
    if (v !== 'true' && v !== 'false') throw new EndpointError(`option ${key} must be true or false`);
    return v === 'true';
  };
  const caFile = url.searchParams.get('tlsCAFile');
  const tls = flag('tls', caFile !== null);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : tls ? 1115 : 1113;
  return {
    kind: 'tcp',
    host,
    port,
    user,
    credentials: user !== null && password !== null ? { username: user, password } : null,
    tls: tls ? { verify: flag('tlsVerifyCert', true), caFile: caFile ? path.resolve(caFile) : null } : null,
    description: `${scheme}//${url.host}`,
  };
}

/** The hosts a server's address connects to: its host, or every seed of a gRPC string (`host1:2113,host2:2113`). */
export function endpointHosts(spec: Exclude<EndpointSpec, { kind: 'local' }>): string[] {
  if (spec.kind === 'tcp') return [spec.host];
  const authority = spec.connectionString.replace(/^[^:]+:\/\//, '').split(/[/?#]/, 1)[0];
  return authority
    .slice(authority.lastIndexOf('@') + 1)
    .split(',')
    .map((seed) => (seed.startsWith('[') ? seed.slice(0, seed.indexOf(']') + 1) : seed.split(':')[0]))
    .filter((host) => host !== '');
}

/** Whether the string names a user but no password (the password then comes from --password-stdin). */
export function needsPassword(spec: EndpointSpec): boolean {
  if (spec.kind === 'tcp') return spec.user !== null && spec.credentials === null;
  if (spec.kind === 'grpc') return spec.user !== null && !spec.hasPassword;
  return false;
}

export function withPassword(spec: EndpointSpec, password: string): EndpointSpec {
  if (spec.kind === 'tcp' && spec.user !== null) return { ...spec, credentials: { username: spec.user, password } };
  if (spec.kind === 'grpc') {
    const url = new URL(spec.connectionString);
    url.password = encodeURIComponent(password);
    return { ...spec, connectionString: url.toString(), hasPassword: true };
  }
  return spec;
}

/** One side, reopened for every attempt (the local store stays open for the whole replication). */
export interface Endpoint {
  readonly description: string;
  openSource(): Promise<ReplicationSource>;
  openTarget(): Promise<ReplicationTarget>;
  close(): Promise<void>;
}

export async function openEndpoint(spec: EndpointSpec, logger: Logger, role: 'source' | 'target'): Promise<Endpoint> {
  if (spec.kind === 'local') {
    const local = await openLocalEndpoint(spec.dataDir, logger, role);
    return {
      description: spec.description,
      openSource: async () => local.source(),
      openTarget: async () => local.target(),
      close: () => local.close(),
    };
  }
  return remoteEndpoint(spec);
}

// The clients (node-eventstore-client, @kurrent/kurrentdb-client: ~45 MiB and 0.3 s of CPU together) load when a
// replication first connects to a server, not with every process that serves an event log.
const tcpClient = () => import('./tcp.ts');
const grpcClient = () => import('./grpc.ts');

/** A server's address as a side: a connection per attempt, nothing held between them. */
export function remoteEndpoint(spec: Exclude<EndpointSpec, { kind: 'local' }>): Endpoint {
  if (spec.kind === 'tcp') {
    return {
      description: spec.description,
      openSource: async () => (await tcpClient()).openTcpSource(spec),
      openTarget: async () => (await tcpClient()).openTcpTarget(spec),
      close: async () => {},
    };
  }
  return {
    description: spec.description,
    openSource: async () => (await grpcClient()).openGrpcSource(spec),
    openTarget: async () => (await grpcClient()).openGrpcTarget(spec),
    close: async () => {},
  };
}

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

/** One seed of a gRPC string: a host name, an IPv4 address or a bracketed IPv6 one, with an optional port. */
const GRPC_SEED = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::([0-9]{1,5}))?$/i;

/**
 * A gRPC connection string split as @kurrent/kurrentdb-client splits it: `scheme://[user[:password]@]seed[,seed…]
 * [/][?options]`, where a cluster lists several seeds (`kurrentdb://a:2113,b:2113,c:2113`). WHATWG URL parsing
 * refuses a port list, so the authority is taken apart here.
 */
function splitGrpcString(raw: string): {
  scheme: string;
  user: string | null;
  password: string | null;
  seeds: string[];
  tail: string;
  query: URLSearchParams;
} {
  const m = /^([a-z][a-z0-9+.-]*:)\/\/(?:([^@/?#]*)@)?([^/?#]*)([^?#]*)(\?[^#]*)?$/i.exec(raw);
  if (!m) throw new EndpointError('is not a valid connection string');
  const [, scheme, userinfo, authority, path_, query = ''] = m;
  if (path_ !== '' && path_ !== '/') throw new EndpointError('has a path; a gRPC address is scheme://host:port');
  const seeds = authority.split(',');
  for (const seed of seeds) {
    const parts = GRPC_SEED.exec(seed);
    if (!parts) throw new EndpointError(seed === '' ? 'names no host' : `has a bad host "${seed}"`);
    if (parts[2] !== undefined && (Number(parts[2]) < 1 || Number(parts[2]) > 65_535))
      throw new EndpointError(`has a bad port in "${seed}"`);
  }
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      throw new EndpointError('has badly encoded credentials');
    }
  };
  const colon = userinfo === undefined ? -1 : userinfo.indexOf(':');
  const user = userinfo ? decode(colon < 0 ? userinfo : userinfo.slice(0, colon)) || null : null;
  const password = userinfo && colon >= 0 ? decode(userinfo.slice(colon + 1)) : null;
  return { scheme: scheme.toLowerCase(), user, password, seeds, tail: query, query: new URLSearchParams(query) };
}

export function parseEndpoint(raw: string): EndpointSpec {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    const dataDir = path.resolve(raw);
    return { kind: 'local', dataDir, description: dataDir };
  }
  if (GRPC_SCHEMES.includes(/^[^:]*:/.exec(raw)![0].toLowerCase())) {
    const grpc = splitGrpcString(raw);
    for (const key of grpc.query.keys())
      if (!GRPC_QUERY_KEYS.has(flatCase(key))) throw new EndpointError(`has an unknown option "${key}"`);
    return {
      kind: 'grpc',
      connectionString: raw,
      description: `${grpc.scheme}//${grpc.seeds.join(',')}${grpc.tail}`,
      user: grpc.user,
      hasPassword: grpc.password !== null,
    };
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
  return splitGrpcString(spec.connectionString).seeds.map((seed) => GRPC_SEED.exec(seed)![1]);
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
    const grpc = splitGrpcString(spec.connectionString);
    const credentials = `${encodeURIComponent(grpc.user ?? '')}:${encodeURIComponent(password)}@`;
    const connectionString = `${grpc.scheme}//${credentials}${grpc.seeds.join(',')}${grpc.tail}`;
    return { ...spec, connectionString, hasPassword: true };
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

import fs from 'node:fs';
import path from 'node:path';
import type { RunProjections } from '../eventlog/index.ts';
import { ensureDirectory } from '../fs-util.ts';
import { parsePort, UsageError, type CliCommand } from './command.ts';

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Run the event-log TCP server, the social server and the UI until stopped (SIGINT/SIGTERM)',
  options: {
    host: {
      type: 'string',
      env: 'HOMEPORT_HOST',
      placeholder: 'ADDR',
      description: 'interface to bind every listener to (default 127.0.0.1)',
    },
    'http-port': {
      type: 'string',
      env: 'HOMEPORT_HTTP_PORT',
      placeholder: 'PORT',
      description: 'HTTP port for the UI and the social server (default 3000; 0 = any free port)',
    },
    'tcp-port': {
      type: 'string',
      env: 'HOMEPORT_TCP_PORT',
      placeholder: 'PORT',
      description: 'event-log TCP port (default 1113; 0 = any free port)',
    },
    'tcp-tls-port': {
      type: 'string',
      env: 'HOMEPORT_TCP_TLS_PORT',
      placeholder: 'PORT',
      description: 'event-log TLS port (default 1115; 0 = any free port; "off" disables it)',
    },
    'grpc-port': {
      type: 'string',
      env: 'HOMEPORT_GRPC_PORT',
      placeholder: 'PORT',
      description: 'event-log KurrentDB gRPC port (default 2113; 0 = any free port; "off" disables it)',
    },
    'grpc-insecure': {
      type: 'boolean',
      env: 'HOMEPORT_GRPC_INSECURE',
      description: 'serve gRPC in cleartext without authentication, as KurrentDB --insecure (loopback only)',
    },
    domain: {
      type: 'string',
      env: 'HOMEPORT_DOMAIN',
      placeholder: 'HOST[:PORT]',
      description: 'public domain of the social server (default localhost:<http-port>)',
    },
    'public-url': {
      type: 'string',
      env: 'HOMEPORT_PUBLIC_URL',
      placeholder: 'URL',
      description:
        'address other servers reach this instance at, e.g. https://social.example.org (its federation identity; cannot change once federated)',
    },
    'streaming-url': {
      type: 'string',
      env: 'HOMEPORT_STREAMING_URL',
      placeholder: 'URL',
      description: 'separate streaming address, e.g. wss://streaming.example.org (default: the public address)',
    },
    'tcp-max-connections': {
      type: 'string',
      env: 'HOMEPORT_TCP_MAX_CONNECTIONS',
      placeholder: 'N',
      description: 'open event-log connections allowed at once (default 1000)',
    },
    'tcp-max-subscriptions': {
      type: 'string',
      env: 'HOMEPORT_TCP_MAX_SUBSCRIPTIONS',
      placeholder: 'N',
      description: 'event-log subscriptions open at once over all connections (default 10000)',
    },
    'tcp-max-package-mb': {
      type: 'string',
      env: 'HOMEPORT_TCP_MAX_PACKAGE_MB',
      placeholder: 'MB',
      description: 'largest package an event-log client may send, 1-64 (default 16)',
    },
    'run-projections': {
      type: 'string',
      env: 'HOMEPORT_RUN_PROJECTIONS',
      placeholder: 'MODE',
      description: 'event-log projections: all (default), system (only $by_category, $by_event_type…) or none',
    },
    'trust-proxy': {
      type: 'boolean',
      env: 'HOMEPORT_TRUST_PROXY',
      description: 'a reverse proxy or tunnel is in front: client addresses come from X-Forwarded-For',
    },
    'log-level': {
      type: 'string',
      env: 'HOMEPORT_LOG_LEVEL',
      placeholder: 'LEVEL',
      description: 'trace, debug, info, warn, error (default info)',
    },
  },
  async run(ctx) {
    const v = ctx.values as Record<string, string | undefined>;
    const httpPort = v['http-port'] !== undefined ? parsePort('http-port', v['http-port']) : undefined;
    const tcpPort = v['tcp-port'] !== undefined ? parsePort('tcp-port', v['tcp-port']) : undefined;
    const tlsRaw = v['tcp-tls-port'];
    const tcpTlsPort = tlsRaw === undefined ? undefined : tlsRaw === 'off' ? null : parsePort('tcp-tls-port', tlsRaw);
    const grpcRaw = v['grpc-port'];
    const grpcPort = grpcRaw === undefined ? undefined : grpcRaw === 'off' ? null : parsePort('grpc-port', grpcRaw);
    const grpcInsecure =
      ctx.values['grpc-insecure'] === true ||
      ['1', 'true', 'yes'].includes(String(ctx.values['grpc-insecure']).toLowerCase());
    const tcpMaxConnections =
      v['tcp-max-connections'] !== undefined
        ? parseCount('tcp-max-connections', v['tcp-max-connections'], 1, 1_000_000)
        : undefined;
    const tcpMaxSubscriptions =
      v['tcp-max-subscriptions'] !== undefined
        ? parseCount('tcp-max-subscriptions', v['tcp-max-subscriptions'], 1, 1_000_000)
        : undefined;
    const packageMb =
      v['tcp-max-package-mb'] !== undefined
        ? parseCount('tcp-max-package-mb', v['tcp-max-package-mb'], 1, 64)
        : undefined;
    // The server's code loads when serve runs, not for every command the CLI parses.
    const [{ RUN_PROJECTIONS_VALUES }, { startHomeport }, { PublicUrlChangedError }, { DataDirLockedError }] =
      await Promise.all([
        import('../eventlog/index.ts'),
        import('../start.ts'),
        import('../social/index.ts'),
        import('../lock.ts'),
      ]);
    const runProjections = v['run-projections']?.toLowerCase();
    if (runProjections !== undefined && !(RUN_PROJECTIONS_VALUES as readonly string[]).includes(runProjections)) {
      throw new UsageError(`--run-projections must be one of none, system, all, got "${v['run-projections']}"`);
    }
    const level = v['log-level'];
    if (level && !['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].includes(level)) {
      throw new UsageError(`--log-level must be one of trace, debug, info, warn, error, got "${level}"`);
    }
    try {
      ensureDirectory(ctx.dataDir);
      const probe = path.join(ctx.dataDir, `.write-test-${process.pid}`);
      fs.writeFileSync(probe, '');
      fs.rmSync(probe);
    } catch (err) {
      throw new UsageError(
        `data directory ${ctx.dataDir} is not writable (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }

    let homeport;
    try {
      homeport = await startHomeport({
        dataDir: ctx.dataDir,
        host: v.host,
        httpPort,
        tcpPort,
        tcpTlsPort,
        grpcPort,
        grpcInsecure,
        ...(runProjections ? { runProjections: runProjections as RunProjections } : {}),
        domain: v.domain,
        publicUrl: v['public-url'],
        streamingUrl: v['streaming-url'],
        // Only the multi-process federation tests set this; it is not a command-line option.
        federationAllowPrivateAddress: process.env.HOMEPORT_TEST_PRIVATE_NETWORK === '1',
        // Only the soak benchmark sets this (two accounts posting 20/s); nor is it a command-line option.
        socialRateLimits: process.env.HOMEPORT_BENCH_NO_RATE_LIMIT !== '1',
        logLevel: level,
        trustProxy:
          ctx.values['trust-proxy'] === true ||
          ['1', 'true', 'yes'].includes(String(ctx.values['trust-proxy']).toLowerCase()),
        tcpLimits: {
          ...(tcpMaxConnections ? { maxConnections: tcpMaxConnections } : {}),
          ...(packageMb ? { maxFrameBytes: packageMb * 1024 * 1024 } : {}),
        },
        tcpSubscriptionLimits: tcpMaxSubscriptions ? { maxTotal: tcpMaxSubscriptions } : {},
      });
    } catch (err) {
      if (err instanceof DataDirLockedError || err instanceof PublicUrlChangedError) throw new UsageError(err.message);
      if (err instanceof Error && err.message.startsWith('the public URL'))
        throw new UsageError(`--public-url: ${err.message}`);
      if (err instanceof Error && err.message.startsWith('the gRPC listener'))
        throw new UsageError(`--grpc-insecure: ${err.message}`);
      if (err instanceof Error && err.message.startsWith('the streaming URL'))
        throw new UsageError(`--streaming-url: ${err.message}`);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
        throw new UsageError(`cannot listen: ${(err as Error).message}`);
      throw err;
    }
    // Listen for SIGINT/SIGTERM before saying the server is up: whoever reads these lines may stop it at once, and a
    // signal arriving between the last line and the handlers would find the default action (death, no clean close).
    const stopped = ctx.waitForStop();
    for (const l of homeport.listeners) {
      if (l.name === 'http') ctx.out(`http listening on ${l.url}`);
      else if (l.name === 'eventlog-tcp') ctx.out(`eventlog tcp listening on ${l.host}:${l.port}`);
      else if (l.name === 'eventlog-grpc') ctx.out(`eventlog grpc listening on ${l.host}:${l.port} (${l.url})`);
      else ctx.out(`eventlog tls listening on ${l.host}:${l.port}`);
    }
    ctx.out(`data directory ${ctx.dataDir}`);
    const signal = await stopped;
    ctx.err(`received ${signal}, stopping`);
    await homeport.close();
    return 0;
  },
};

function parseCount(flag: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}

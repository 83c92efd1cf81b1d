import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import {
  PASSWORD_OPTIONS,
  passwordOption,
  UsageError,
  type CliCommand,
  type CliContext,
  type CliOption,
} from './command.ts';

/**
 * `homeport eventlog projections list|show|create|update|enable|disable|abort|reset|delete|state|result`:
 * a client of the running server's HTTP projections API on the gRPC port (the same API EventStoreDB's
 * tools use), so the server's projections change at once. Over TLS it trusts the server's certificate
 * from the data directory; credentials are Basic (admin by default).
 */

const DEFAULT_SERVER = 'https://127.0.0.1:2113';
const CERT_FILE = path.join('tls', 'eventlog-cert.pem');

const CONNECTION_OPTIONS: Record<string, CliOption> = {
  server: {
    type: 'string',
    env: 'HOMEPORT_EVENTLOG_URL',
    placeholder: 'URL',
    description: `the event log's gRPC/HTTP address (default ${DEFAULT_SERVER}; http:// with --grpc-insecure)`,
  },
  user: { type: 'string', placeholder: 'USER', description: 'event-log user (default admin)' },
  ...PASSWORD_OPTIONS,
};

interface Reply {
  status: number;
  body: string;
}

async function request(ctx: CliContext, method: string, pathAndQuery: string, body?: string): Promise<Reply> {
  const base = typeof ctx.values.server === 'string' ? ctx.values.server : DEFAULT_SERVER;
  let url: URL;
  try {
    url = new URL(pathAndQuery, base);
  } catch {
    throw new UsageError(`--server must be a URL like ${DEFAULT_SERVER}, got "${base}"`);
  }
  const user = typeof ctx.values.user === 'string' ? ctx.values.user : 'admin';
  const password = await passwordOption(ctx);
  const headers: http.OutgoingHttpHeaders = {};
  if (password !== undefined) headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  let ca: Buffer | undefined;
  if (url.protocol === 'https:') {
    const certFile = path.join(ctx.dataDir, CERT_FILE);
    if (!fs.existsSync(certFile))
      throw new Error(`no server certificate at ${certFile}: give the --data-dir of the running server`);
    ca = fs.readFileSync(certFile);
  }
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method, headers, ...(ca ? { ca } : {}), timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('the server did not answer within 30 s')));
    req.on('error', (err) => reject(new Error(`cannot reach the event log at ${url.origin}: ${err.message}`)));
    req.end(body);
  });
}

/** Sends one request; a non-2xx answer becomes an error with the server's reason. */
async function call(ctx: CliContext, method: string, pathAndQuery: string, body?: string): Promise<string> {
  const reply = await request(ctx, method, pathAndQuery, body);
  if (reply.status === 401) throw new Error('not authorized: give --user and --password (or --password-stdin)');
  if (reply.status < 200 || reply.status > 299) throw new Error(`${reply.status}: ${reply.body.trim() || 'failed'}`);
  return reply.body;
}

function oneName(ctx: CliContext): string {
  if (ctx.positionals.length !== 1) throw new UsageError('give exactly one projection NAME');
  return ctx.positionals[0];
}

function readQuery(ctx: CliContext): string {
  const file = ctx.values['query-file'];
  if (typeof file !== 'string' || file === '') throw new UsageError('--query-file is required');
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

interface Statistics {
  name: string;
  status: string;
  mode: string;
  position: string;
  progress: number;
  eventsProcessedAfterRestart: number;
  stateReason: string;
}

const listCommand: CliCommand = {
  name: 'eventlog projections list',
  summary: 'List event-log projections with status, mode, position and events processed',
  options: { ...CONNECTION_OPTIONS, json: { type: 'boolean', description: 'print JSON' } },
  async run(ctx) {
    if (ctx.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.positionals[0]}"`);
    const { projections } = JSON.parse(await call(ctx, 'GET', '/projections/any')) as { projections: Statistics[] };
    if (ctx.values.json === true) {
      ctx.out(JSON.stringify(projections, null, 2));
      return 0;
    }
    for (const p of projections.sort((a, b) => a.name.localeCompare(b.name)))
      ctx.out(
        [p.name, p.status, p.mode, p.position || '-', `${p.eventsProcessedAfterRestart} events`].join('\t') +
          (p.stateReason ? `\t${p.stateReason.split(/\r?\n/).join(' ')}` : ''),
      );
    return 0;
  },
};

const showCommand: CliCommand = {
  name: 'eventlog projections show',
  summary: "Show a projection's statistics and query",
  args: 'NAME',
  options: CONNECTION_OPTIONS,
  async run(ctx) {
    const name = oneName(ctx);
    ctx.out(JSON.stringify(JSON.parse(await call(ctx, 'GET', `/projection/${encodeURIComponent(name)}`)), null, 2));
    ctx.out(await call(ctx, 'GET', `/projection/${encodeURIComponent(name)}/query`));
    return 0;
  },
};

const createCommand: CliCommand = {
  name: 'eventlog projections create',
  summary: 'Create a JavaScript projection (continuous unless --one-time) from a query file',
  args: 'NAME',
  options: {
    ...CONNECTION_OPTIONS,
    'query-file': { type: 'string', placeholder: 'FILE', description: 'the projection query (JavaScript)' },
    'one-time': { type: 'boolean', description: 'run once to the end of its input, then complete' },
    emit: { type: 'boolean', description: 'allow emit() and linkTo()' },
    'track-emitted-streams': {
      type: 'boolean',
      description: 'record the streams it emits to (delete can remove them)',
    },
    disabled: { type: 'boolean', description: 'create it stopped' },
  },
  async run(ctx) {
    const name = oneName(ctx);
    const query = readQuery(ctx);
    const params = new URLSearchParams({
      name,
      type: 'JS',
      enabled: ctx.values.disabled === true ? 'false' : 'true',
      emit: ctx.values.emit === true ? 'true' : 'false',
      trackemittedstreams: ctx.values['track-emitted-streams'] === true ? 'true' : 'false',
    });
    const kind = ctx.values['one-time'] === true ? 'onetime' : 'continuous';
    await call(ctx, 'POST', `/projections/${kind}?${params}`, query);
    ctx.out(`created ${name}`);
    return 0;
  },
};

const updateCommand: CliCommand = {
  name: 'eventlog projections update',
  summary: "Replace a projection's query (it goes on from its checkpoint)",
  args: 'NAME',
  options: {
    ...CONNECTION_OPTIONS,
    'query-file': { type: 'string', placeholder: 'FILE', description: 'the new query (JavaScript)' },
  },
  async run(ctx) {
    const name = oneName(ctx);
    await call(ctx, 'PUT', `/projection/${encodeURIComponent(name)}/query?type=JS`, readQuery(ctx));
    ctx.out(`updated ${name}`);
    return 0;
  },
};

function commandFor(verb: 'enable' | 'disable' | 'abort' | 'reset', summary: string): CliCommand {
  return {
    name: `eventlog projections ${verb}`,
    summary,
    args: 'NAME',
    options: CONNECTION_OPTIONS,
    async run(ctx) {
      const name = oneName(ctx);
      await call(ctx, 'POST', `/projection/${encodeURIComponent(name)}/command/${verb}`, '');
      ctx.out(`${verb}: ${name}`);
      return 0;
    },
  };
}

const deleteCommand: CliCommand = {
  name: 'eventlog projections delete',
  summary: 'Delete a stopped projection (and its checkpoint or emitted streams when asked)',
  args: 'NAME',
  options: {
    ...CONNECTION_OPTIONS,
    'delete-checkpoint-stream': { type: 'boolean', description: 'delete its checkpoint streams too' },
    'delete-emitted-streams': {
      type: 'boolean',
      description: 'delete the streams it emitted to (when it tracked them)',
    },
    'delete-state-stream': { type: 'boolean', description: 'delete its state stream' },
  },
  async run(ctx) {
    const name = oneName(ctx);
    const params = new URLSearchParams({
      deleteCheckpointStream: String(ctx.values['delete-checkpoint-stream'] === true),
      deleteEmittedStreams: String(ctx.values['delete-emitted-streams'] === true),
      deleteStateStream: String(ctx.values['delete-state-stream'] === true),
    });
    await call(ctx, 'DELETE', `/projection/${encodeURIComponent(name)}?${params}`);
    ctx.out(`deleted ${name}`);
    return 0;
  },
};

function readOut(what: 'state' | 'result'): CliCommand {
  return {
    name: `eventlog projections ${what}`,
    summary: `Print a projection's ${what} (of one partition with --partition)`,
    args: 'NAME',
    options: { ...CONNECTION_OPTIONS, partition: { type: 'string', placeholder: 'KEY', description: 'the partition' } },
    async run(ctx) {
      const name = oneName(ctx);
      const partition =
        typeof ctx.values.partition === 'string' ? `?partition=${encodeURIComponent(ctx.values.partition)}` : '';
      const body = await call(ctx, 'GET', `/projection/${encodeURIComponent(name)}/${what}${partition}`);
      ctx.out(body === '' ? `(no ${what})` : body);
      return 0;
    },
  };
}

export const eventlogProjectionsCommands: CliCommand[] = [
  listCommand,
  showCommand,
  createCommand,
  updateCommand,
  commandFor('enable', 'Start a projection (from its checkpoint)'),
  commandFor('disable', 'Stop a projection after writing its checkpoint'),
  commandFor('abort', 'Stop a projection without a checkpoint'),
  commandFor('reset', 'Reprocess a projection from the start'),
  deleteCommand,
  readOut('state'),
  readOut('result'),
];

/**
 * EventStoreDB's HTTP projections API (what node-eventstore-client's ProjectionsManager and the legacy
 * admin UI call), served on the gRPC port's HTTP side: thin routes over the ProjectionManager.
 * Credentials (Basic, or Bearer access tokens) are checked before any body is read; bodies (query text) are bounded.
 */
import type http from 'node:http';
import {
  principalOfAuthorization,
  type EventLogTokens,
  type EventLogUsers,
  type Principal,
} from '../../store/index.ts';
import {
  ProjectionCommandError,
  ProjectionConfigError,
  ProjectionConflictError,
  ProjectionNotFoundError,
  SubsystemRestartError,
} from '../commands.ts';
import type { ProjectionManager } from '../manager.ts';
import type { ProjectionConfig, ProjectionMode } from '../definition.ts';
import { projectionStatistics } from './statistics.ts';

/** Largest query text accepted (EventStoreDB bounds it by its log record size). */
export const MAX_QUERY_BYTES = 1024 * 1024;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

export interface HttpRouteHost {
  addHttpRoute(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, handler: Handler): void;
}

export interface ProjectionsHttpOptions {
  users: EventLogUsers;
  /** Bearer tokens the users hold (absent: Basic only). */
  tokens?: EventLogTokens;
  /** false: cleartext mode, no authentication (as KurrentDB's --insecure, loopback only). */
  secure: boolean;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function flag(value: string | null, fallback: boolean): boolean {
  if (value === null || value === '') return fallback;
  const v = value.toLowerCase();
  if (v === 'yes' || v === 'true' || v === '1') return true;
  if (v === 'no' || v === 'false' || v === '0') return false;
  throw new HttpError(400, `Invalid boolean value: ${value}`);
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_QUERY_BYTES) throw new HttpError(413, `The query is larger than ${MAX_QUERY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_QUERY_BYTES) throw new HttpError(413, `The query is larger than ${MAX_QUERY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(
  res: http.ServerResponse,
  status: number,
  body: string,
  type = 'application/json',
  extra: http.OutgoingHttpHeaders = {},
) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

const CONFIG_NUMBERS = [
  'checkpointAfterMs',
  'checkpointHandledThreshold',
  'checkpointUnhandledBytesThreshold',
  'pendingEventsThreshold',
  'maxWriteBatchLength',
  'maxAllowedWritesInFlight',
  'projectionExecutionTimeout',
] as const;

/** A PUT config body: known keys of the right type; anything else is a 400. */
function parseConfig(body: string): Partial<ProjectionConfig> {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'The configuration must be a JSON object');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new HttpError(400, 'The configuration must be a JSON object');
  const config: Partial<ProjectionConfig> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'emitEnabled' || key === 'trackEmittedStreams') {
      if (typeof value !== 'boolean') throw new HttpError(400, `${key} must be true or false`);
      config[key] = value;
    } else if ((CONFIG_NUMBERS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        throw new HttpError(400, `${key} must be a number of 0 or more`);
      config[key as (typeof CONFIG_NUMBERS)[number]] = value;
    }
  }
  return config;
}

const MODES: Record<string, ProjectionMode | 'AllNonTransient' | undefined> = {
  any: undefined,
  'all-non-transient': 'AllNonTransient',
  onetime: 'OneTime',
  continuous: 'Continuous',
  transient: 'Transient',
};

export function mountProjectionsHttp(
  host: HttpRouteHost,
  manager: ProjectionManager,
  options: ProjectionsHttpOptions,
): void {
  const authenticate = async (req: http.IncomingMessage): Promise<Principal> => {
    if (!options.secure) return { name: '$insecure', groups: ['$admins'] };
    // Basic or Homeport's own access tokens (Bearer), parsed as on the gRPC calls of this port.
    const principal = await principalOfAuthorization(
      options,
      req.headers.authorization ?? '',
      req.socket.remoteAddress,
    );
    if ('refused' in principal) throw new HttpError(401, 'Not authenticated');
    return principal;
  };
  const requireOps = (p: Principal) => {
    if (!p.groups.includes('$admins') && !p.groups.includes('$ops')) throw new HttpError(401, 'Not authorized');
  };

  const handle =
    (
      fn: (req: http.IncomingMessage, res: http.ServerResponse, url: URL, principal: Principal) => Promise<void>,
    ): Handler =>
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      try {
        const principal = await authenticate(req);
        await fn(req, res, url, principal);
      } catch (err) {
        if (err instanceof HttpError) send(res, err.status, err.message, 'text/plain');
        else if (err instanceof ProjectionNotFoundError) send(res, 404, err.message, 'text/plain');
        else if (err instanceof ProjectionConflictError) send(res, 409, err.message, 'text/plain');
        else if (err instanceof ProjectionCommandError) send(res, 500, err.message, 'text/plain');
        else if (err instanceof ProjectionConfigError) send(res, 400, err.message, 'text/plain');
        else if (err instanceof SubsystemRestartError) send(res, 400, err.message, 'text/plain');
        else throw err;
      }
    };
  const baseOf = (req: http.IncomingMessage) =>
    `${'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;

  host.addHttpRoute(
    'POST',
    '/projections/*',
    handle(async (req, res, url, principal) => {
      const kind = url.pathname.slice('/projections/'.length);
      if (kind === 'restart') {
        requireOps(principal);
        await manager.restartSubsystem();
        return send(res, 200, 'Restarting', 'text/plain');
      }
      const mode = ({ onetime: 'OneTime', continuous: 'Continuous', transient: 'Transient' } as const)[
        kind as 'onetime'
      ];
      if (!mode) throw new HttpError(404, 'Not found');
      const type = url.searchParams.get('type') ?? 'JS';
      if (type.toUpperCase() !== 'JS') throw new HttpError(400, `Unsupported projection type: ${type}`);
      const name = url.searchParams.get('name') || undefined;
      if (mode !== 'OneTime' && !name) throw new ProjectionCommandError('Name is required');
      const query = await readBody(req);
      const created = await manager.create({
        name,
        query,
        mode,
        enabled: flag(url.searchParams.get('enabled'), true),
        emit: flag(url.searchParams.get('emit'), false),
        checkpoints: flag(url.searchParams.get('checkpoints'), false),
        trackEmittedStreams: flag(url.searchParams.get('trackemittedstreams'), false),
      });
      send(res, 201, JSON.stringify({ name: created.name }), 'application/json', {
        location: `${baseOf(req)}/projection/${created.name}`,
      });
    }),
  );

  host.addHttpRoute(
    'GET',
    '/projections/*',
    handle(async (req, res, url) => {
      const kind = url.pathname.slice('/projections/'.length);
      if (!(kind in MODES)) throw new HttpError(404, 'Not found');
      const base = baseOf(req);
      const projections = manager.list(MODES[kind]).map((p) => projectionStatistics(p, base));
      send(res, 200, JSON.stringify({ projections }));
    }),
  );

  /** `/projection/<name>[/<rest>]`: the name is everything up to the last known suffix (names are not URL-encoded by clients). */
  const parse = (url: URL): { name: string; rest: string } => {
    const path = decodeURIComponent(url.pathname.slice('/projection/'.length));
    for (const rest of [
      '/state',
      '/result',
      '/query',
      '/statistics',
      '/config',
      '/command/enable',
      '/command/disable',
      '/command/abort',
      '/command/reset',
    ]) {
      if (path.endsWith(rest)) return { name: path.slice(0, -rest.length), rest };
    }
    return { name: path, rest: '' };
  };

  host.addHttpRoute(
    'GET',
    '/projection/*',
    handle(async (req, res, url) => {
      const { name, rest } = parse(url);
      const entry = manager.get(name);
      const base = baseOf(req);
      const partition = url.searchParams.get('partition') ?? '';
      switch (rest) {
        case '':
          return send(res, 200, JSON.stringify(projectionStatistics(entry, base)));
        case '/statistics':
          return send(res, 200, JSON.stringify({ projections: [projectionStatistics(entry, base)] }));
        case '/state':
          return send(res, 200, manager.state(name, partition));
        case '/result':
          return send(res, 200, manager.result(name, partition));
        case '/query': {
          const d = entry.definition;
          if (!flag(url.searchParams.get('config'), false)) return send(res, 200, d.query, 'application/javascript');
          return send(
            res,
            200,
            JSON.stringify({
              name,
              query: d.query,
              emitEnabled: d.emitEnabled === true,
              trackEmittedStreams: d.trackEmittedStreams === true,
              checkpointsEnabled: d.checkpointsDisabled !== true,
              type: d.handlerType,
              definition: manager.sourceDefinition(name),
              outputConfig: null,
            }),
          );
        }
        case '/config':
          return send(res, 200, JSON.stringify(manager.config(name)));
        default:
          throw new HttpError(404, 'Not found');
      }
    }),
  );

  host.addHttpRoute(
    'PUT',
    '/projection/*',
    handle(async (req, res, url, principal) => {
      const { name, rest } = parse(url);
      if (rest === '/config') {
        requireOps(principal);
        manager.get(name);
        await manager.updateConfig(name, parseConfig(await readBody(req)));
        return send(res, 200, JSON.stringify(manager.config(name)));
      }
      if (rest !== '/query') throw new HttpError(404, 'Not found');
      manager.get(name);
      const query = await readBody(req);
      const emit = url.searchParams.get('emit');
      await manager.updateQuery(name, query, emit === null ? undefined : flag(emit, false));
      send(res, 200, JSON.stringify({ name }));
    }),
  );

  host.addHttpRoute(
    'POST',
    '/projection/*',
    handle(async (_req, res, url) => {
      const { name, rest } = parse(url);
      const commands: Record<string, ((n: string) => Promise<void>) | undefined> = {
        '/command/enable': (n) => manager.enable(n),
        '/command/disable': (n) => manager.disable(n),
        '/command/abort': (n) => manager.abort(n),
        '/command/reset': (n) => manager.reset(n),
      };
      const command = commands[rest];
      if (!command) throw new HttpError(404, 'Not found');
      await command(name);
      send(res, 200, JSON.stringify({ name }));
    }),
  );

  host.addHttpRoute(
    'DELETE',
    '/projection/*',
    handle(async (_req, res, url, principal) => {
      const { name, rest } = parse(url);
      if (rest !== '') throw new HttpError(404, 'Not found');
      requireOps(principal);
      await manager.delete(name, {
        deleteCheckpointStream: flag(url.searchParams.get('deleteCheckpointStream'), false),
        deleteStateStream: flag(url.searchParams.get('deleteStateStream'), false),
        deleteEmittedStreams: flag(url.searchParams.get('deleteEmittedStreams'), false),
      });
      send(res, 200, JSON.stringify({ name }));
    }),
  );
}

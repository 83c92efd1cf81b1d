/**
 * `homeport eventlog replicate --from SOURCE --to TARGET`: copies an event store into another (a data
 * directory, or a server over TCP or gRPC) once, or continuously with --continuous until stopped. Progress
 * goes to stderr (one refreshed line on a terminal, a line a second otherwise), the summary to stdout.
 */
import readline from 'node:readline';
import type { Endpoint, EndpointSpec, ReplicationFilter, ReplicationProgress } from '../eventlog/index.ts';
import { requireString, UsageError, type CliCommand, type CliContext } from './command.ts';
import { formatProgress, formatSummary } from './replicate-progress.ts';

async function stdinLines(count: number): Promise<string[]> {
  const lines: string[] = [];
  const reader = readline.createInterface({ input: process.stdin });
  for await (const line of reader) {
    lines.push(line);
    if (lines.length === count) break;
  }
  reader.close();
  return lines;
}

type EventLogModule = typeof import('../eventlog/index.ts');

function endpointOption(lib: EventLogModule, ctx: CliContext, name: 'from' | 'to'): EndpointSpec {
  const raw = requireString(ctx, name);
  const { EndpointError, parseEndpoint } = lib;
  try {
    return parseEndpoint(raw);
  } catch (err) {
    if (err instanceof EndpointError) throw new UsageError(`--${name} ${err.message}`);
    throw err;
  }
}

function regexOption(ctx: CliContext, name: string): RegExp | null {
  const raw = ctx.values[name];
  if (typeof raw !== 'string') return null;
  try {
    return new RegExp(raw);
  } catch (err) {
    throw new UsageError(`--${name}: ${(err as Error).message}`);
  }
}

function listOption(ctx: CliContext, name: string): string[] {
  const raw = ctx.values[name];
  return Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
}

/** Passwords for the sides whose connection string names a user without one: one line each, --from first. */
async function withPasswords(lib: EventLogModule, ctx: CliContext, specs: EndpointSpec[]): Promise<EndpointSpec[]> {
  const { needsPassword, withPassword } = lib;
  const missing = specs.filter(needsPassword);
  if (ctx.values['password-stdin'] !== true) {
    if (missing.length > 0)
      throw new UsageError('a connection string names a user without a password: add it, or give --password-stdin');
    return specs;
  }
  if (missing.length === 0)
    throw new UsageError('--password-stdin: no connection string names a user without a password (tcp://USER@host)');
  const lines = await stdinLines(missing.length);
  if (lines.length < missing.length || lines.some((l) => l === ''))
    throw new UsageError(`--password-stdin: expected ${missing.length} password line(s) on standard input`);
  let next = 0;
  return specs.map((spec) => (needsPassword(spec) ? withPassword(spec, lines[next++]) : spec));
}

export const eventlogReplicateCommand: CliCommand = {
  name: 'eventlog replicate',
  summary: 'Copy an event store into another (data directory, tcp:// or kurrentdb:// server), once or continuously',
  options: {
    from: {
      type: 'string',
      placeholder: 'SOURCE',
      description: 'data directory, tcp://[USER[:PASS]@]HOST:PORT, esdb://…, kurrentdb://… or esdb+discover://…',
    },
    to: { type: 'string', placeholder: 'TARGET', description: 'the same forms as --from' },
    continuous: { type: 'boolean', description: 'after catching up, follow the source live until stopped' },
    'into-existing': { type: 'boolean', description: 'allow a target that already holds events of its own' },
    name: {
      type: 'string',
      placeholder: 'NAME',
      description: 'checkpoint stream $replication-NAME on the target (default: from the source address)',
    },
    'stream-prefix': { type: 'string', multiple: true, placeholder: 'PREFIX', description: 'copy only these streams' },
    'stream-regex': { type: 'string', placeholder: 'REGEX', description: 'copy only streams matching this' },
    'event-type-prefix': {
      type: 'string',
      multiple: true,
      placeholder: 'PREFIX',
      description: 'copy only events of these types',
    },
    'event-type-regex': { type: 'string', placeholder: 'REGEX', description: 'copy only event types matching this' },
    'password-stdin': {
      type: 'boolean',
      description: 'passwords of tcp://USER@… / kurrentdb://USER@… from standard input, one line each (--from first)',
    },
  },
  async run(ctx) {
    if (ctx.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.positionals[0]}"`);
    // Loaded when the command runs: the CLI's other commands need none of replication's clients.
    const [lib, { createLogger, LogRing }] = await Promise.all([
      import('../eventlog/index.ts'),
      import('../logger.ts'),
    ]);
    const { defaultReplicationName, NO_FILTER, openEndpoint, replicate } = lib;
    const [fromSpec, toSpec] = await withPasswords(lib, ctx, [
      endpointOption(lib, ctx, 'from'),
      endpointOption(lib, ctx, 'to'),
    ]);
    if (fromSpec.description === toSpec.description) throw new UsageError('--from and --to are the same store');
    const filter: ReplicationFilter = {
      ...NO_FILTER,
      streamPrefixes: listOption(ctx, 'stream-prefix'),
      streamRegex: regexOption(ctx, 'stream-regex'),
      eventTypePrefixes: listOption(ctx, 'event-type-prefix'),
      eventTypeRegex: regexOption(ctx, 'event-type-regex'),
    };
    const name = typeof ctx.values.name === 'string' ? ctx.values.name : defaultReplicationName(fromSpec.description);
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name)) throw new UsageError('--name: letters, digits, _ . - only (1-100)');
    const logger = createLogger({ level: 'warn', toConsole: true, ring: new LogRing(50) });
    const opened: Endpoint[] = [];
    const stop = new AbortController();
    ctx.waitForStop().then(() => stop.abort());
    const progress = new ProgressPrinter(ctx);
    try {
      const source = await openEndpoint(fromSpec, logger, 'source');
      opened.push(source);
      const target = await openEndpoint(toSpec, logger, 'target');
      opened.push(target);
      ctx.err(`replicating ${source.description} → ${target.description} (checkpoint $replication-${name})`);
      const summary = await replicate({
        openSource: () => source.openSource(),
        openTarget: () => target.openTarget(),
        name,
        filter,
        continuous: ctx.values.continuous === true,
        intoExisting: ctx.values['into-existing'] === true,
        signal: stop.signal,
        onProgress: (p) => progress.update(p),
      });
      progress.finish();
      ctx.out(formatSummary(summary));
      return 0;
    } finally {
      progress.finish();
      for (const endpoint of opened.reverse()) await endpoint.close().catch(() => {});
    }
  },
};

/** One refreshed line on a terminal; elsewhere a line a second and one per change of phase. */
class ProgressPrinter {
  private lastLine = 0;
  private lastPhase = '';
  private open = false;
  private readonly tty = process.stderr.isTTY === true;
  private readonly ctx: CliContext;

  constructor(ctx: CliContext) {
    this.ctx = ctx;
  }

  update(p: ReplicationProgress): void {
    const now = Date.now();
    if (p.phase === 'done' || (p.phase === this.lastPhase && now - this.lastLine < (this.tty ? 200 : 1000))) return;
    this.lastPhase = p.phase;
    this.lastLine = now;
    const line = formatProgress(p);
    if (this.tty) {
      process.stderr.write(`\r\x1b[2K${line}`);
      this.open = true;
    } else this.ctx.err(line);
  }

  finish(): void {
    if (this.open) process.stderr.write('\n');
    this.open = false;
  }
}

import { UsageError, requireString, type CliCommand, type CliContext } from './command.ts';
import { withEventLog } from './eventlog-users.ts';

/**
 * `homeport eventlog tokens create|list|revoke`: bearer tokens for event-log users (what gRPC clients send as
 * `{ bearerToken }`). Like `eventlog users`, it opens eventlog.db directly; a running server sees a new or
 * revoked token at its next request.
 */

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `90m` → milliseconds. Three units cover token lifetimes; a library would add more than it saves. */
function parseExpiry(raw: string): number {
  const m = /^([1-9][0-9]{0,5})([mhd])$/.exec(raw.trim());
  if (!m) throw new UsageError(`--expires-in must be a number and a unit m, h or d (e.g. 30d), not "${raw}"`);
  return Number(m[1]) * UNITS[m[2]];
}

function noPositionals(ctx: CliContext): void {
  if (ctx.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.positionals[0]}"`);
}

const iso = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString());

const eventlogTokensCreateCommand: CliCommand = {
  name: 'eventlog tokens create',
  summary: 'Issue a bearer token for an event-log user (printed once)',
  options: {
    user: { type: 'string', placeholder: 'USER', description: 'the user the token acts as' },
    'expires-in': {
      type: 'string',
      placeholder: 'N{m|h|d}',
      description: 'lifetime, e.g. 30d (default: until revoked)',
    },
    name: { type: 'string', placeholder: 'LABEL', description: 'what the token is for' },
  },
  async run(ctx) {
    noPositionals(ctx);
    const user = requireString(ctx, 'user');
    const raw = ctx.values['expires-in'];
    const expiresInMs = typeof raw === 'string' ? parseExpiry(raw) : undefined;
    const name = typeof ctx.values.name === 'string' ? ctx.values.name : undefined;
    const { token, info } = await withEventLog(ctx, false, (log) => log.tokens.create(user, { name, expiresInMs }));
    ctx.out(token);
    ctx.err(`token ${info.id} for event-log user ${info.user}, expires ${iso(info.expiresAt)}; it is not shown again`);
    return 0;
  },
};

const eventlogTokensListCommand: CliCommand = {
  name: 'eventlog tokens list',
  summary: 'List bearer tokens (never their secrets)',
  options: {
    user: { type: 'string', placeholder: 'USER', description: "only this user's tokens" },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(ctx) {
    noPositionals(ctx);
    const user = typeof ctx.values.user === 'string' ? ctx.values.user : undefined;
    const tokens = await withEventLog(ctx, false, async (log) => log.tokens.list(user));
    if (ctx.values.json === true) {
      ctx.out(JSON.stringify(tokens, null, 2));
      return 0;
    }
    const rows = tokens.map((t) => [t.id, t.user, iso(t.createdAt), iso(t.expiresAt), t.name]);
    const header = ['ID', 'USER', 'CREATED', 'EXPIRES', 'NAME'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [header, ...rows])
      ctx.out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
    return 0;
  },
};

const eventlogTokensRevokeCommand: CliCommand = {
  name: 'eventlog tokens revoke',
  summary: 'Revoke a bearer token by its id (it stops working at once)',
  args: 'ID',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give exactly one token ID');
    const id = ctx.positionals[0];
    await withEventLog(ctx, false, (log) => log.tokens.revoke(id));
    ctx.out(`revoked token ${id}`);
    return 0;
  },
};

export const eventlogTokensCommands: CliCommand[] = [
  eventlogTokensCreateCommand,
  eventlogTokensListCommand,
  eventlogTokensRevokeCommand,
];

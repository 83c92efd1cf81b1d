import fs from 'node:fs';
import path from 'node:path';
import type { EventLog } from '../eventlog/index.ts';
import { ensureDirectory } from '../fs-util.ts';
import { PASSWORD_OPTIONS, passwordOption, UsageError, type CliCommand, type CliContext } from './command.ts';

/**
 * `homeport eventlog users list|add|passwd|remove`: event-log accounts (the ones TCP clients sign in
 * with). Opens eventlog.db directly, so it works while `homeport serve` runs on the same data directory;
 * the server notices the change at once (its next request or within half a second).
 */
export async function withEventLog<T>(ctx: CliContext, create: boolean, fn: (log: EventLog) => Promise<T>): Promise<T> {
  const [{ EVENTLOG_FILE, EventLogUserError, openEventLog }, { createLogger, LogRing }] = await Promise.all([
    import('../eventlog/index.ts'),
    import('../logger.ts'),
  ]);
  const file = path.join(ctx.dataDir, EVENTLOG_FILE);
  if (create) ensureDirectory(ctx.dataDir);
  else if (!fs.existsSync(file))
    throw new Error(`no event log in ${ctx.dataDir} (run "homeport serve" once, or add a user first)`);
  const log = await openEventLog({
    dataDir: ctx.dataDir,
    backgroundCheckpoint: false,
    logger: createLogger({ level: 'warn', toConsole: true, ring: new LogRing(50) }),
  });
  try {
    return await fn(log);
  } catch (err) {
    if (err instanceof EventLogUserError)
      throw err.code === 'INVALID' ? new UsageError(err.message) : new Error(err.message);
    throw err;
  } finally {
    await log.close();
  }
}

function userName(ctx: CliContext): string {
  if (ctx.positionals.length !== 1) throw new UsageError('give exactly one USER name');
  return ctx.positionals[0];
}

export const eventlogUsersListCommand: CliCommand = {
  name: 'eventlog users list',
  summary: 'List event-log users (the accounts TCP clients sign in with)',
  options: { json: { type: 'boolean', description: 'print JSON' } },
  async run(ctx) {
    if (ctx.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.positionals[0]}"`);
    const users = await withEventLog(ctx, false, async (log) => log.users.list());
    if (ctx.values.json === true) {
      ctx.out(
        JSON.stringify(
          users.map((u) => ({ ...u, createdAt: new Date(u.createdAt).toISOString() })),
          null,
          2,
        ),
      );
      return 0;
    }
    const rows = users.map((u) => [
      u.name,
      u.groups.join(',') || '-',
      u.disabled ? 'disabled' : 'enabled',
      new Date(u.createdAt).toISOString(),
      u.fullName,
    ]);
    const header = ['USER', 'GROUPS', 'STATE', 'CREATED', 'FULL NAME'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const r of [header, ...rows])
      ctx.out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
    return 0;
  },
};

export const eventlogUsersAddCommand: CliCommand = {
  name: 'eventlog users add',
  summary: 'Add an event-log user',
  args: 'USER',
  options: {
    ...PASSWORD_OPTIONS,
    'full-name': { type: 'string', placeholder: 'NAME', description: 'full name (default: the user name)' },
    group: {
      type: 'string',
      multiple: true,
      placeholder: 'GROUP',
      description: 'group membership, e.g. $admins or $ops (repeatable)',
    },
  },
  async run(ctx) {
    const name = userName(ctx);
    const pw = await password(ctx);
    const groups = (ctx.values.group as string[] | undefined) ?? [];
    const fullName = typeof ctx.values['full-name'] === 'string' ? ctx.values['full-name'] : undefined;
    const user = await withEventLog(ctx, true, (log) => log.users.add({ name, password: pw, fullName, groups }));
    ctx.out(`added event-log user ${user.name}${user.groups.length ? ` (groups ${user.groups.join(', ')})` : ''}`);
    return 0;
  },
};

export const eventlogUsersPasswdCommand: CliCommand = {
  name: 'eventlog users passwd',
  summary: "Change an event-log user's password",
  args: 'USER',
  options: { ...PASSWORD_OPTIONS },
  async run(ctx) {
    const name = userName(ctx);
    const pw = await password(ctx);
    await withEventLog(ctx, false, (log) => log.users.changePassword(name, pw));
    ctx.out(`changed the password of event-log user ${name}`);
    return 0;
  },
};

export const eventlogUsersRemoveCommand: CliCommand = {
  name: 'eventlog users remove',
  summary: 'Remove an event-log user',
  args: 'USER',
  options: {},
  async run(ctx) {
    const name = userName(ctx);
    await withEventLog(ctx, false, (log) => log.users.remove(name));
    ctx.out(`removed event-log user ${name}`);
    return 0;
  },
};

export const eventlogUsersCommands: CliCommand[] = [
  eventlogUsersListCommand,
  eventlogUsersAddCommand,
  eventlogUsersPasswdCommand,
  eventlogUsersRemoveCommand,
];

/** The new password of an event-log user: one is required. */
async function password(ctx: CliContext): Promise<string> {
  const pw = await passwordOption(ctx);
  if (pw === undefined) throw new UsageError('--password or --password-stdin is required');
  return pw;
}

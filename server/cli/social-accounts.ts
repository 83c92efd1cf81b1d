import type { SocialAdmin, UserAction } from '../social/index.ts';
import {
  PASSWORD_OPTIONS,
  passwordOption,
  requireString,
  UsageError,
  type CliCommand,
  type CliContext,
} from './command.ts';

/** Opens social.db next to a possibly running server and turns admin and validation errors into CLI errors. */
export async function withSocialAdmin<T>(ctx: CliContext, fn: (admin: SocialAdmin) => Promise<T> | T): Promise<T> {
  // Loaded per command, not at the CLI's start: `--help` and the event-log commands need none of the social server.
  const [{ AdminError, openSocialAdmin, ValidationFailure }, { createLogger, LogRing }] = await Promise.all([
    import('../social/index.ts'),
    import('../logger.ts'),
  ]);
  const handle = openSocialAdmin({
    dataDir: ctx.dataDir,
    logger: createLogger({ level: 'warn', toConsole: true, ring: new LogRing(50) }),
  });
  try {
    return await fn(handle.admin);
  } catch (err) {
    if (err instanceof AdminError) throw new UsageError(err.message);
    if (err instanceof ValidationFailure) {
      throw new UsageError(
        Object.entries(err.details)
          .map(([field, errors]) => `${field} ${errors.map((e) => e.description).join(', ')}`)
          .join('; '),
      );
    }
    throw err;
  } finally {
    await handle.close();
  }
}

function onePositional(ctx: CliContext, what: string): string {
  if (ctx.positionals.length !== 1) throw new UsageError(`give exactly one ${what}`);
  return ctx.positionals[0];
}

export const accountsCreateCommand: CliCommand = {
  name: 'accounts create',
  summary:
    'Create a local social account; password (8-72 characters) from --password-stdin, generated and printed when none is given',
  args: 'USER',
  options: {
    email: { type: 'string', placeholder: 'EMAIL', description: 'e-mail address of the new user (required)' },
    ...PASSWORD_OPTIONS,
    role: { type: 'string', placeholder: 'ROLE', description: 'owner, admin, moderator or user (default user)' },
    confirmed: { type: 'boolean', description: 'skip e-mail confirmation' },
    approved: { type: 'boolean', description: 'mark the sign-up approved (default: approved)' },
  },
  async run(ctx) {
    const username = onePositional(ctx, 'USER name');
    const email = requireString(ctx, 'email');
    const password = await passwordOption(ctx);
    const created = await withSocialAdmin(ctx, (admin) =>
      admin.createAccount({
        username,
        email,
        password,
        role: typeof ctx.values.role === 'string' ? ctx.values.role : undefined,
        confirmed: ctx.values.confirmed === true,
        approved: ctx.values.approved !== false,
      }),
    );
    ctx.out(
      `Created @${created.account.username} (id ${created.account.id}, role ${created.user.role}${created.user.confirmedAt === null ? ', unconfirmed: a confirmation e-mail was written' : ''})`,
    );
    if (created.password) ctx.out(`New password: ${created.password}`);
    return 0;
  },
};

const STATE_SUMMARIES: Record<UserAction, string> = {
  confirm: 'Confirm the e-mail address of a local account',
  approve: 'Approve a pending sign-up',
  suspend: 'Suspend a local account (ends its sessions; reversible)',
  unsuspend: 'Lift a suspension',
  delete: 'Delete a local account (its name stays reserved)',
};

// Keyed by every UserAction (the type checks it), so the commands are listed without loading the social server.
export const accountStateCommands: CliCommand[] = (Object.keys(STATE_SUMMARIES) as UserAction[]).map((action) => ({
  name: `accounts ${action}`,
  summary: STATE_SUMMARIES[action],
  args: 'USER',
  options: {},
  async run(ctx: CliContext) {
    const username = onePositional(ctx, 'USER name');
    const account = await withSocialAdmin(ctx, (admin) => admin.applyUserAction(username, action));
    ctx.out(
      `@${account.username}: ${action === 'delete' ? 'deleted' : `${action}${action.endsWith('e') ? 'd' : 'ed'}`}`,
    );
    return 0;
  },
}));

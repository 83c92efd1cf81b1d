import { UsageError, type CliCommand } from './command.ts';
import { withSocialAdmin } from './social-accounts.ts';

export const settingsSetCommand: CliCommand = {
  name: 'settings set',
  summary:
    'Change a social server setting (the keys `settings get` lists), e.g. "settings set registrations open|approval|closed"',
  args: 'KEY VALUE',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length !== 2)
      throw new UsageError('give a KEY and a VALUE (quote values with spaces; "" clears)');
    const [key, value] = ctx.positionals;
    const stored = await withSocialAdmin(ctx, (admin) => admin.setSetting(key, value));
    ctx.out(
      `${key} = ${key === 'smtp_url' && stored ? stored.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@') : JSON.stringify(stored)}`,
    );
    return 0;
  },
};

export const settingsGetCommand: CliCommand = {
  name: 'settings get',
  summary: 'Show social server settings (all, or one KEY)',
  args: '[KEY]',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length > 1) throw new UsageError('give at most one KEY');
    const { OWNER_SETTINGS } = await import('../social/index.ts');
    const keys = ctx.positionals.length ? ctx.positionals : Object.keys(OWNER_SETTINGS);
    await withSocialAdmin(ctx, (admin) => {
      for (const key of keys) {
        const value = admin.getSetting(key);
        ctx.out(
          `${key} = ${key === 'smtp_url' && value ? value.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@') : JSON.stringify(value)}`,
        );
      }
    });
    return 0;
  },
};

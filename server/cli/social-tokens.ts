import { requireString, UsageError, type CliCommand } from './command.ts';
import { withSocialAdmin } from './social-accounts.ts';

export const tokensCreateCommand: CliCommand = {
  name: 'tokens create',
  summary: 'Print a new bearer token of a local account for the Mastodon API',
  args: 'USER',
  options: {
    scopes: {
      type: 'string',
      placeholder: 'SCOPES',
      description: 'space-separated OAuth scopes, e.g. "read write follow push" (required)',
    },
  },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give exactly one USER name');
    const scopes = requireString(ctx, 'scopes');
    const { token } = await withSocialAdmin(ctx, (admin) => admin.createToken(ctx.positionals[0], scopes));
    ctx.out(token);
    return 0;
  },
};

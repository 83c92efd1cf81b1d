import { UsageError, type CliCommand } from './command.ts';
import { withSocialAdmin } from './social-accounts.ts';

export const trendsTagsCommand: CliCommand = {
  name: 'trends tags',
  summary: 'List hashtags used in public posts lately, with whether each may trend',
  options: {},
  async run(ctx) {
    await withSocialAdmin(ctx, (admin) => {
      for (const t of admin.trendingTagCandidates()) {
        const review = t.trendable === null ? 'not reviewed' : t.trendable ? 'allowed' : 'kept out';
        ctx.out(`#${t.tag.displayName}\t${t.accounts} accounts, ${t.uses} posts\t${review}`);
      }
    });
    return 0;
  },
};

function reviewCommand(allowed: boolean): CliCommand {
  return {
    name: allowed ? 'trends allow' : 'trends disallow',
    summary: allowed ? 'Let a hashtag appear in trends (staff review, as Mastodon asks)' : 'Keep a hashtag out of trends',
    args: 'HASHTAG',
    options: {},
    async run(ctx) {
      if (ctx.positionals.length !== 1) throw new UsageError('give one HASHTAG');
      await withSocialAdmin(ctx, (admin) => admin.reviewTrendingTag(ctx.positionals[0], allowed));
      ctx.out(`#${ctx.positionals[0].replace(/^#/, '')} ${allowed ? 'may trend' : 'kept out of trends'}`);
      return 0;
    },
  };
}

export const trendsCommands: CliCommand[] = [trendsTagsCommand, reviewCommand(true), reviewCommand(false)];

import { UsageError, type CliCommand } from './command.ts';
import type { SocialAdmin } from '../social/index.ts';
import { withSocialAdmin } from './social-accounts.ts';

export const trendsTagsCommand: CliCommand = {
  name: 'trends tags',
  summary: 'List hashtags used in public posts lately, with whether each may trend',
  options: {},
  async run(ctx) {
    await withSocialAdmin(ctx, (admin) => {
      for (const t of admin.trendingTagCandidates()) {
        ctx.out(`#${t.tag.displayName}\t${t.accounts} accounts, ${t.uses} posts\t${review(t.trendable)}`);
      }
    });
    return 0;
  },
};

export const trendsLinksCommand: CliCommand = {
  name: 'trends links',
  summary: 'List articles shared in public posts lately, with whether each may trend',
  options: {},
  async run(ctx) {
    await withSocialAdmin(ctx, (admin) => {
      for (const l of admin.trendingLinkCandidates()) {
        ctx.out(
          `${l.card.url}\t${l.card.title}\t${l.accounts} accounts, ${l.uses} shares\t${review(l.card.trendable)}`,
        );
      }
    });
    return 0;
  },
};

function review(trendable: boolean | null): string {
  return trendable === null ? 'not reviewed' : trendable ? 'allowed' : 'kept out';
}

interface Reviewed {
  /** The command's words before allow/disallow. */
  prefix: string;
  /** What is reviewed, as the help names it (HASHTAG, URL). */
  arg: string;
  what: string;
  review(admin: SocialAdmin, value: string, allowed: boolean): void;
  /** How the output names it. */
  shown(value: string): string;
}

const HASHTAGS: Reviewed = {
  prefix: 'trends',
  arg: 'HASHTAG',
  what: 'a hashtag',
  review: (admin, value, allowed) => admin.reviewTrendingTag(value, allowed),
  shown: (value) => `#${value.replace(/^#/, '')}`,
};

const LINKS: Reviewed = {
  prefix: 'trends links',
  arg: 'URL',
  what: 'a link (as `trends links` shows it; it then has its link timeline too)',
  review: (admin, value, allowed) => admin.reviewTrendingLink(value, allowed),
  shown: (value) => value,
};

function reviewCommand(kind: Reviewed, allowed: boolean): CliCommand {
  return {
    name: `${kind.prefix} ${allowed ? 'allow' : 'disallow'}`,
    summary: allowed
      ? `Let ${kind.what} appear in trends (staff review, as Mastodon asks)`
      : `Keep ${kind.what} out of trends`,
    args: kind.arg,
    options: {},
    async run(ctx) {
      if (ctx.positionals.length !== 1) throw new UsageError(`give one ${kind.arg}`);
      await withSocialAdmin(ctx, (admin) => kind.review(admin, ctx.positionals[0], allowed));
      ctx.out(`${kind.shown(ctx.positionals[0])} ${allowed ? 'may trend' : 'kept out of trends'}`);
      return 0;
    },
  };
}

export const trendsCommands: CliCommand[] = [
  trendsTagsCommand,
  trendsLinksCommand,
  ...[HASHTAGS, LINKS].flatMap((kind) => [reviewCommand(kind, true), reviewCommand(kind, false)]),
];

import { UsageError, type CliCommand } from './command.ts';
import { withSocialAdmin } from './social-accounts.ts';

function time(ctx: { values: Record<string, unknown> }, name: string): number | null {
  const raw = ctx.values[name];
  if (typeof raw !== 'string') return null;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms))
    throw new UsageError(`--${name} must be a date and time such as 2026-12-24T18:00:00Z, got "${raw}"`);
  return ms;
}

export const announcementsAddCommand: CliCommand = {
  name: 'announcements add',
  summary: 'Publish an announcement to every user (GET /api/v1/announcements; apps show it on top)',
  args: 'TEXT',
  options: {
    'starts-at': { type: 'string', placeholder: 'TIME', description: 'when the announced event starts (ISO 8601)' },
    'ends-at': { type: 'string', placeholder: 'TIME', description: 'when it ends; the announcement is withdrawn then' },
    'all-day': { type: 'boolean', description: 'the time range is whole days (needs --starts-at and --ends-at)' },
  },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give the announcement TEXT as one (quoted) argument');
    const id = await withSocialAdmin(ctx, (admin) =>
      admin.publishAnnouncement({
        text: ctx.positionals[0],
        startsAt: time(ctx, 'starts-at'),
        endsAt: time(ctx, 'ends-at'),
        allDay: ctx.values['all-day'] === true,
      }),
    );
    ctx.out(`announcement ${id} published`);
    return 0;
  },
};

export const announcementsListCommand: CliCommand = {
  name: 'announcements list',
  summary: 'List the current announcements',
  options: {},
  async run(ctx) {
    await withSocialAdmin(ctx, (admin) => {
      for (const a of admin.listAnnouncements())
        ctx.out(`${a.id}\t${new Date(a.publishedAt).toISOString()}\t${a.text}`);
    });
    return 0;
  },
};

export const announcementsRemoveCommand: CliCommand = {
  name: 'announcements remove',
  summary: 'Withdraw an announcement',
  args: 'ID',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give one announcement ID');
    await withSocialAdmin(ctx, (admin) => admin.removeAnnouncement(ctx.positionals[0]));
    ctx.out(`announcement ${ctx.positionals[0]} removed`);
    return 0;
  },
};

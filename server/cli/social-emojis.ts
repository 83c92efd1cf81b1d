import { UsageError, type CliCommand } from './command.ts';
import { withSocialAdmin } from './social-accounts.ts';

export const emojisAddCommand: CliCommand = {
  name: 'emojis add',
  summary: 'Add or replace a custom emoji from a PNG, GIF or WebP file (at most 256 KB)',
  args: 'SHORTCODE FILE',
  options: {
    category: { type: 'string', placeholder: 'CATEGORY', description: 'group shown in emoji pickers' },
    hidden: { type: 'boolean', description: 'usable by typing :shortcode: but left out of pickers' },
  },
  async run(ctx) {
    if (ctx.positionals.length !== 2) throw new UsageError('give a SHORTCODE and an image FILE');
    const [shortcode, file] = ctx.positionals;
    const category = typeof ctx.values.category === 'string' ? ctx.values.category : null;
    await withSocialAdmin(ctx, (admin) =>
      admin.addCustomEmoji(shortcode, file, { category, visibleInPicker: ctx.values.hidden !== true }),
    );
    ctx.out(`:${shortcode}: added`);
    return 0;
  },
};

export const emojisListCommand: CliCommand = {
  name: 'emojis list',
  summary: 'List the custom emojis',
  options: {},
  async run(ctx) {
    await withSocialAdmin(ctx, (admin) => {
      for (const e of admin.listCustomEmojis())
        ctx.out(`:${e.shortcode}:\t${e.category ?? ''}${e.visibleInPicker ? '' : '\t(hidden from pickers)'}`);
    });
    return 0;
  },
};

export const emojisRemoveCommand: CliCommand = {
  name: 'emojis remove',
  summary: 'Remove a custom emoji',
  args: 'SHORTCODE',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give one SHORTCODE');
    await withSocialAdmin(ctx, (admin) => admin.removeCustomEmoji(ctx.positionals[0].replace(/^:|:$/g, '')));
    ctx.out(`:${ctx.positionals[0].replace(/^:|:$/g, '')}: removed`);
    return 0;
  },
};

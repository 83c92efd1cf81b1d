import { UsageError, type CliCommand } from './command.ts';
import { withSocialAdmin } from './social-accounts.ts';

export const rulesAddCommand: CliCommand = {
  name: 'rules add',
  summary: 'Add a server rule (shown by GET /api/v1/instance/rules)',
  args: 'TEXT',
  options: { hint: { type: 'string', placeholder: 'HINT', description: 'longer explanation of the rule' } },
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give the rule TEXT as one (quoted) argument');
    const rule = await withSocialAdmin(ctx, (admin) =>
      admin.addRule(ctx.positionals[0], typeof ctx.values.hint === 'string' ? ctx.values.hint : ''),
    );
    ctx.out(`rule ${rule.id} added`);
    return 0;
  },
};

export const rulesListCommand: CliCommand = {
  name: 'rules list',
  summary: 'List the server rules',
  options: {},
  async run(ctx) {
    await withSocialAdmin(ctx, (admin) => {
      for (const r of admin.listRules()) ctx.out(`${r.id}\t${r.text}${r.hint ? `\t(${r.hint})` : ''}`);
    });
    return 0;
  },
};

export const rulesRemoveCommand: CliCommand = {
  name: 'rules remove',
  summary: 'Remove a server rule by id',
  args: 'ID',
  options: {},
  async run(ctx) {
    if (ctx.positionals.length !== 1) throw new UsageError('give one rule ID');
    await withSocialAdmin(ctx, (admin) => admin.removeRule(ctx.positionals[0]));
    ctx.out(`rule ${ctx.positionals[0]} removed`);
    return 0;
  },
};

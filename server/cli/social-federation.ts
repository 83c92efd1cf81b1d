import { parsePublicUrl } from '../config.ts';
import { UsageError, type CliCommand } from './command.ts';

export const federationCheckCommand: CliCommand = {
  name: 'federation check',
  summary:
    'Fetch this instance’s own WebFinger, actor and NodeInfo through its public URL, as other servers do, and say what is wrong (works while serve runs)',
  args: '',
  options: {
    'public-url': {
      type: 'string',
      placeholder: 'URL',
      description: 'check this address instead of the one the server was started with',
    },
  },
  async run(ctx) {
    if (ctx.positionals.length) throw new UsageError('no arguments expected');
    const raw = ctx.values['public-url'];
    let publicUrl: string | undefined;
    if (typeof raw === 'string') {
      try {
        publicUrl = parsePublicUrl(raw).origin;
      } catch (err) {
        throw new UsageError(`--public-url: ${(err as Error).message}`);
      }
    }
    const [{ checkInstance, formatReport, openSocialAdmin }, { createLogger, LogRing }] = await Promise.all([
      import('../social/index.ts'),
      import('../logger.ts'),
    ]);
    const handle = openSocialAdmin({
      dataDir: ctx.dataDir,
      logger: createLogger({ level: 'warn', toConsole: true, ring: new LogRing(50) }),
    });
    try {
      const report = await checkInstance(handle.context, publicUrl);
      for (const line of formatReport(report)) ctx.out(line);
      return report.ok ? 0 : 1;
    } finally {
      await handle.close();
    }
  },
};

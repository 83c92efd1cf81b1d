import type { BackupProgress } from '../backup/index.ts';
import { UsageError, type CliCommand, type CliContext } from './command.ts';

function target(ctx: CliContext): string {
  if (ctx.positionals.length !== 1) throw new UsageError('give one folder: DIR');
  return ctx.positionals[0];
}

/** One line per tenth of the way (and per step), so a long copy shows it is moving without flooding a terminal. */
function progressPrinter(ctx: CliContext): (p: BackupProgress) => void {
  let last = -1;
  let lastStep = '';
  return (p) => {
    const tenth = Math.floor(p.fraction * 10);
    if (tenth === last && p.step === lastStep) return;
    last = tenth;
    lastStep = p.step;
    if (p.step !== 'done') ctx.err(`${String(Math.round(p.fraction * 100)).padStart(3)}% ${p.step}`);
  };
}

async function run<T>(fn: () => Promise<T>): Promise<T> {
  const { BackupError } = await import('../backup/index.ts');
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BackupError) throw new UsageError(err.message);
    throw err;
  }
}

export const backupCommand: CliCommand = {
  name: 'backup',
  summary: 'Copy the data directory (both databases, media, TLS key) to a new folder; works while serve runs',
  args: 'DIR',
  options: {},
  async run(ctx) {
    const dir = target(ctx);
    // Loaded when the command runs, not for every command the CLI parses.
    const { backupDataDir } = await import('../backup/index.ts');
    const manifest = await run(() => backupDataDir(ctx.dataDir, dir, progressPrinter(ctx)));
    ctx.out(`backed up ${manifest.databases.map((d) => d.name).join(', ')} and ${manifest.files} files to ${dir}`);
    return 0;
  },
};

export const restoreCommand: CliCommand = {
  name: 'restore',
  summary: 'Replace the data directory with a backup made by "homeport backup" (stop the server first)',
  args: 'DIR',
  options: {},
  async run(ctx) {
    const dir = target(ctx);
    const { restoreDataDir } = await import('../backup/index.ts');
    const manifest = await run(() => restoreDataDir(dir, ctx.dataDir, progressPrinter(ctx)));
    ctx.out(
      `restored ${manifest.databases.map((d) => d.name).join(', ')} and ${manifest.files} files from the backup of ${manifest.createdAt} into ${ctx.dataDir}`,
    );
    return 0;
  },
};

import { parseArgs } from 'node:util';
import { defaultDataDir } from '../config.ts';
import { HOMEPORT_VERSION } from '../version.ts';
import { UsageError, type CliCommand, type CliContext, type CliOption } from './command.ts';
import { commands } from './commands.ts';

const GLOBAL_OPTIONS: Record<string, CliOption> = {
  'data-dir': {
    type: 'string',
    env: 'HOMEPORT_DATA_DIR',
    placeholder: 'DIR',
    description: `data directory (default ${defaultDataDir()})`,
  },
  help: { type: 'boolean', description: 'show help for the command' },
};

function optionLines(options: Record<string, CliOption>): string[] {
  return Object.entries(options).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ` ${o.placeholder ?? 'VALUE'}` : ''}`;
    const env = o.env ? ` [env ${o.env}]` : '';
    return `    ${flag.padEnd(28)} ${o.description}${env}`;
  });
}

export function helpText(command?: CliCommand): string {
  if (command) {
    return [
      `Usage: homeport ${command.name}${command.args ? ` ${command.args}` : ''} [options]`,
      '',
      command.summary,
      '',
      'Options:',
      ...optionLines({ ...command.options, ...GLOBAL_OPTIONS }),
    ].join('\n');
  }
  const lines = [
    `homeport ${HOMEPORT_VERSION}: your own event store (EventStoreDB TCP protocol) and fediverse server (Mastodon API)`,
    '',
    'Usage: homeport <command> [options]',
    '',
    'Commands:',
  ];
  for (const c of commands) {
    lines.push(`  ${`${c.name}${c.args ? ` ${c.args}` : ''}`.padEnd(44)} ${c.summary}`);
    lines.push(...optionLines(c.options));
  }
  lines.push('', 'Options for every command:', ...optionLines(GLOBAL_OPTIONS));
  lines.push('', 'Admin commands work while `homeport serve` runs on the same data directory.');
  return lines.join('\n');
}

/** The longest command whose words start argv. */
function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | null {
  let best: { command: CliCommand; rest: string[] } | null = null;
  for (const c of commands) {
    const words = c.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.command.name.split(' ').length)) {
      best = { command: c, rest: argv.slice(words.length) };
    }
  }
  return best;
}

export interface RunCliIo {
  out?: (line: string) => void;
  err?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  stopSignal?: Promise<string>;
}

/** Runs one CLI invocation and returns its exit code (0 ok, 1 failure, 2 usage error). */
export async function runCli(argv: string[], io: RunCliIo = {}): Promise<number> {
  const out = io.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const env = io.env ?? process.env;
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      out(helpText());
      return 0;
    }
    if (argv[0] === '--version') {
      out(HOMEPORT_VERSION);
      return 0;
    }
    const found = findCommand(argv);
    if (!found) {
      const words = argv
        .slice(
          0,
          Math.max(
            1,
            argv.findIndex((a) => a.startsWith('-')),
          ),
        )
        .filter((a) => !a.startsWith('-'));
      throw new UsageError(`unknown command "${words.join(' ')}" (see homeport --help)`);
    }
    const { command, rest } = found;
    const options = { ...command.options, ...GLOBAL_OPTIONS };
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        options: Object.fromEntries(
          Object.entries(options).map(([k, o]) => [k, { type: o.type, multiple: o.multiple ?? false }]),
        ),
        allowPositionals: true,
        strict: true,
      });
    } catch (e) {
      throw new UsageError((e as Error).message.split('\n')[0]);
    }
    if (parsed.values.help) {
      out(helpText(command));
      return 0;
    }
    const values = { ...parsed.values } as CliContext['values'];
    for (const [name, o] of Object.entries(options)) {
      if (values[name] === undefined && o.env && env[o.env] !== undefined && env[o.env] !== '')
        values[name] = env[o.env];
    }
    const dataDir = (values['data-dir'] as string | undefined) ?? defaultDataDir();
    // Signal handlers only for commands that wait for them (serve), not for every admin command.
    const waitForStop = () =>
      io.stopSignal ??
      new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
    // Whatever an admin command creates in the data directory is private to the user, as the server's files are.
    if (process.platform !== 'win32') process.umask(0o077);
    return await command.run({ values, positionals: parsed.positionals, dataDir, out, err, env, waitForStop });
  } catch (e) {
    if (e instanceof UsageError) {
      err(`homeport: ${e.message}`);
      return 2;
    }
    err(`homeport: ${(e as Error).message}`);
    return 1;
  }
}

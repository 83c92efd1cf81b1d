/** The shape every `homeport` command has; commands live one per file and are listed in commands.ts. */
export interface CliOption {
  type: 'string' | 'boolean';
  description: string;
  /** Environment variable that supplies the value when the flag is absent. */
  env?: string;
  /** Shown in --help. */
  placeholder?: string;
  multiple?: boolean;
}

export interface CliContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** Resolved from --data-dir, HOMEPORT_DATA_DIR or the platform default. */
  dataDir: string;
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  waitForStop(): Promise<string>;
}

export interface CliCommand {
  /** Words that select the command, e.g. "serve" or "eventlog users add". */
  name: string;
  summary: string;
  /** Positional arguments as shown in help, e.g. "USER". */
  args?: string;
  options: Record<string, CliOption>;
  run(ctx: CliContext): Promise<number>;
}

/** Bad flags or values: one line on stderr and exit code 2. */
export class UsageError extends Error {}

export function parsePort(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a port number (0-65535), got "${raw}"`);
  const port = Number(raw);
  if (port > 65535) throw new UsageError(`--${name} must be a port number (0-65535), got ${port}`);
  return port;
}

export function requireString(ctx: CliContext, name: string): string {
  const v = ctx.values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** --password (visible to other local users in the process list) or --password-stdin (the first line of standard input). */
export const PASSWORD_OPTIONS: Record<string, CliOption> = {
  password: {
    type: 'string',
    placeholder: 'PASSWORD',
    description: 'the password (visible to other local users; prefer --password-stdin)',
  },
  'password-stdin': { type: 'boolean', description: 'read the password from the first line of standard input' },
};

/** The password from --password or the first line of stdin (--password-stdin); undefined when neither was given. */
export async function passwordOption(ctx: CliContext): Promise<string | undefined> {
  const given = ctx.values.password;
  const fromStdin = ctx.values['password-stdin'] === true;
  if (typeof given === 'string' && fromStdin)
    throw new UsageError('give either --password or --password-stdin, not both');
  if (typeof given === 'string') return given;
  if (!fromStdin) return undefined;
  const text = (await readStdin()).split(/\r?\n/)[0];
  if (!text) throw new UsageError('no password on standard input');
  return text;
}

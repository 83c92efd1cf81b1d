import type { CliCommand } from './command.ts';
import { serveCommand } from './serve.ts';

/** Every `homeport` command. Subsystems add theirs here (one file each). */
export const commands: CliCommand[] = [serveCommand];

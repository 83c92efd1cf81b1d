import { backupCommand, restoreCommand } from './backup.ts';
import type { CliCommand } from './command.ts';
import { eventlogProjectionsCommands } from './eventlog-projections.ts';
import { eventlogReplicateCommand } from './eventlog-replicate.ts';
import { eventlogTokensCommands } from './eventlog-tokens.ts';
import { eventlogUsersCommands } from './eventlog-users.ts';
import { serveCommand } from './serve.ts';
import { accountsCreateCommand, accountStateCommands } from './social-accounts.ts';
import { federationCheckCommand } from './social-federation.ts';
import {
  announcementsAddCommand,
  announcementsListCommand,
  announcementsRemoveCommand,
} from './social-announcements.ts';
import { rulesAddCommand, rulesListCommand, rulesRemoveCommand } from './social-rules.ts';
import { settingsGetCommand, settingsSetCommand } from './social-settings.ts';
import { tokensCreateCommand } from './social-tokens.ts';
import { trendsCommands } from './social-trends.ts';
import { emojisAddCommand, emojisListCommand, emojisRemoveCommand } from './social-emojis.ts';

/** Every `homeport` command. Subsystems add theirs here (one file each). */
export const commands: CliCommand[] = [
  serveCommand,
  accountsCreateCommand,
  ...accountStateCommands,
  tokensCreateCommand,
  settingsSetCommand,
  settingsGetCommand,
  rulesAddCommand,
  rulesListCommand,
  rulesRemoveCommand,
  federationCheckCommand,
  announcementsAddCommand,
  announcementsListCommand,
  announcementsRemoveCommand,
  ...trendsCommands,
  emojisAddCommand,
  emojisListCommand,
  emojisRemoveCommand,
  ...eventlogUsersCommands,
  ...eventlogTokensCommands,
  ...eventlogProjectionsCommands,
  eventlogReplicateCommand,
  backupCommand,
  restoreCommand,
];

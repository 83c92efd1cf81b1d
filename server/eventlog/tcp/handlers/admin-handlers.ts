import type { ScavengeResultCode } from '../../store/index.ts';
import { TcpCommand } from '../commands.ts';
import type { CommandHandlerMap } from '../dispatcher.ts';
import { enumTable } from '../messages.ts';

const ScavengeResultWire = enumTable<ScavengeResultCode>('ScavengeDatabaseResponse.ScavengeResult');

/** ScavengeDatabase: the store starts the scavenge in the background and answers at once. */
export const adminHandlers: CommandHandlerMap = {
  [TcpCommand.ScavengeDatabase]: {
    request: 'ScavengeDatabase',
    handle(ctx) {
      const r = ctx.store.scavenge(ctx.caller);
      const body: Record<string, unknown> = { result: ScavengeResultWire[r.result] };
      if (r.scavengeId) body.scavengeId = r.scavengeId;
      ctx.replyMessage(TcpCommand.ScavengeDatabaseResponse, 'ScavengeDatabaseResponse', body);
    },
  },
};

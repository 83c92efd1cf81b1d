import { TcpCommand } from '../commands.ts';
import type { CommandHandlerMap } from '../dispatcher.ts';
import type { IdentifyClientMessage } from '../messages.ts';

/** Connection-level requests that need neither credentials nor the store. Authenticate is built into the dispatcher. */
export const connectionHandlers: CommandHandlerMap = {
  [TcpCommand.Ping]: {
    authenticate: false,
    needsStore: false,
    handle(ctx) {
      ctx.reply(TcpCommand.Pong, ctx.body);
    },
  },
  [TcpCommand.IdentifyClient]: {
    request: 'IdentifyClient',
    authenticate: false,
    needsStore: false,
    handle(ctx, message: IdentifyClientMessage) {
      ctx.connection.clientVersion = message.version;
      // Shown in the UI's connection list; a name is a label, not a payload.
      ctx.connection.name = message.connectionName ? message.connectionName.slice(0, 256) : null;
      ctx.reply(TcpCommand.ClientIdentified, null);
    },
  },
};

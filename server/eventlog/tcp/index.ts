/** The EventStoreDB TCP protocol: the listener, and the codec raw clients (the benchmarks) speak it with. */
export { startEventLogTcp, type EventLogTcpServer, type EventLogTcpOptions } from './server.ts';
export {
  DEFAULT_CONNECTION_LIMITS,
  type ConnectionInfo,
  type ConnectionLimits,
  type ConnectionRegistry,
  type TcpServerStats,
} from './connection.ts';
export { TcpCommand, TcpFlags } from './commands.ts';
export { FrameReader } from './framing.ts';
export { guidStringToBytes } from './guid.ts';
export { decodeMessage, encodeMessage } from './messages.ts';
export { encodeFrame, parsePackage, type TcpPackage } from './package.ts';

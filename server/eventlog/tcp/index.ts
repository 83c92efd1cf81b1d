/** The EventStoreDB TCP protocol: the listener, and the codec raw clients (the benchmarks) speak it with. */
export { startEventLogTcp, type EventLogTcpServer } from './server.ts';
export {
  type ConnectionInfo,
  type ConnectionLimits,
} from './connection-facts.ts';
export { TcpCommand, TcpFlags } from './commands.ts';
export { FrameReader } from './framing.ts';
export { guidStringToBytes } from './guid.ts';
export { decodeMessage, encodeMessage } from './messages.ts';
export { encodeFrame, parsePackage, type TcpPackage } from './package.ts';
// What the subscriptions' TCP commands are built with.
export {
  BadRequestError,
  eventNumberToWire,
  filterFromWire,
  int64ToNumber,
  resolvedIndexedEventToWire,
} from './codec.ts';
export type { CommandHandlerMap, PeerConnection, RequestContext } from './dispatcher.ts';
export { GUID_BYTES, guidBytesToString } from './guid.ts';
export { encodeStreamEventAppeared, encodeWriteEventsCompleted } from './event-encoder.ts';
export { enumTable, type FilterMessage, type Int64 } from './messages.ts';
export { TLS_CERT_FILE, TLS_DIR, loadTlsMaterial } from './tls.ts';

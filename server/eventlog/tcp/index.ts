/**
 * The EventStoreDB TCP protocol: the listener, and the codec raw clients (the benchmarks) speak it with.
 *
 * API for modules that plug into the protocol (subscriptions, admin tools):
 *
 *   Handlers — register a table on the server's dispatcher (server.registerHandlers or the
 *   `handlers` option of startEventLogTcp):
 *     registerHandlers({ [TcpCommand.SubscribeToStream]: { request: 'SubscribeToStream',
 *       handle(ctx, msg) { ... ctx.replyMessage(TcpCommand.SubscriptionConfirmation, 'SubscriptionConfirmation', {...}) } } })
 *   `request` names the protobuf message the body is decoded as (undecodable → BadRequest, done for you);
 *   `authenticate: false` skips per-package credential checks (UnsubscribeFromStream, acks);
 *   `needsStore: false` lets it run while the store is not ready. ctx.caller is the authenticated
 *   principal (null = anonymous), ctx.correlationId the request's id (a private copy, keep it as the
 *   subscription's id). Types: RequestContext / CommandHandler in dispatcher.ts.
 *
 *   Sending — connection.send(command, correlationId, body) queues one package and returns false
 *   when the connection is closed. Encode bodies with encodeMessage (messages.ts), which checks
 *   required fields. The queue is bounded: past maxSendQueuePackages/maxSendQueueBytes the whole
 *   connection is dropped (as EventStoreDB does). A subscription should check
 *   connection.isBacklogged() before pushing an event and drop itself (SubscriptionDropped) when it
 *   returns true, rather than take the connection down.
 *
 *   Cleanup — connection.onClose(fn) runs fn once when the connection ends (any reason); it returns
 *   an unregister function. connection.closed tells whether it is ending or ended.
 *
 *   Facts — id, name (from IdentifyClient), remoteAddress/remotePort, secure (TLS), connectedAt,
 *   user, bytesIn/bytesOut, packagesIn/packagesOut, pendingSendPackages/pendingSendBytes; info()
 *   gives them as one plain object (ConnectionInfo, the UI's field names).
 *   EventLogTcpServer.connections (ConnectionRegistry, connection-registry.ts) lists every open connection;
 *   EventLogTcpServer.stats keeps totals.
 */
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

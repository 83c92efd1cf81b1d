import * as grpc from '@grpc/grpc-js';

/**
 * Errors as KurrentDB sends them: a gRPC status plus an `exception` trailer (and companion keys) that the
 * clients turn into their typed errors (WrongExpectedVersionError, StreamDeletedError, AccessDeniedError…).
 * UNAVAILABLE and CANCELLED make the Node client drop its channel and reconnect, so they are never used
 * for ordinary failures.
 */
/** A status to end a call with; grpc-js sends `metadata` as the trailers. */
export class GrpcError extends Error {
  readonly code: grpc.status;
  readonly details: string;
  readonly metadata: grpc.Metadata;
  constructor(code: grpc.status, details: string, metadata: grpc.Metadata) {
    super(details);
    this.code = code;
    this.details = details;
    this.metadata = metadata;
  }
}

export function grpcError(code: grpc.status, details: string, trailers: Record<string, string> = {}): GrpcError {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(trailers)) metadata.set(key, value);
  return new GrpcError(code, details, metadata);
}

export function isGrpcError(err: unknown): err is GrpcError {
  return err instanceof GrpcError;
}

export const Errors = {
  accessDenied: (details = 'Access denied.') =>
    grpcError(grpc.status.PERMISSION_DENIED, details, { exception: 'access-denied' }),
  unauthenticated: (details: string) => grpcError(grpc.status.UNAUTHENTICATED, details),
  invalidArgument: (details: string) => grpcError(grpc.status.INVALID_ARGUMENT, details),
  streamDeleted: (streamName: string) =>
    grpcError(grpc.status.FAILED_PRECONDITION, `Event stream '${streamName}' is deleted.`, {
      exception: 'stream-deleted',
      'stream-name': streamName,
    }),
  streamNotFound: (streamName: string) =>
    grpcError(grpc.status.NOT_FOUND, `Event stream '${streamName}' is not found.`, {
      exception: 'stream-not-found',
      'stream-name': streamName,
    }),
  /** Delete/Tombstone; Append reports it in its response. `actual` null = the stream does not exist. */
  wrongExpectedVersion: (streamName: string, expected: number, actual: number | null) =>
    grpcError(
      grpc.status.FAILED_PRECONDITION,
      `Append failed due to WrongExpectedVersion. Stream: ${streamName}, Expected version: ${expected}, Actual version: ${actual ?? ''}`,
      {
        exception: 'wrong-expected-version',
        'stream-name': streamName,
        'expected-version': String(expected),
        'actual-version': actual === null ? '' : String(actual),
      },
    ),
  missingMetadata: (names: string[]) =>
    grpcError(grpc.status.INVALID_ARGUMENT, `Required metadata properties are missing: ${names.join(', ')}`, {
      exception: 'missing-required-metadata-property',
      'required-metadata-properties': names.join(','),
    }),
  maximumAppendSizeExceeded: (max: number) =>
    grpcError(grpc.status.INVALID_ARGUMENT, `Maximum Append Size of ${max} Exceeded.`, {
      exception: 'maximum-append-size-exceeded',
      'maximum-append-size': String(max),
    }),
  invalidTransaction: () =>
    grpcError(grpc.status.INVALID_ARGUMENT, 'Invalid transaction.', { exception: 'invalid-transaction' }),
  /** KurrentDB's timeouts are ABORTED (not DEADLINE_EXCEEDED, not UNAVAILABLE). */
  timeout: (details: string) => grpcError(grpc.status.ABORTED, details),
  internal: (details: string) => grpcError(grpc.status.UNKNOWN, details),
  unimplemented: (details: string) => grpcError(grpc.status.UNIMPLEMENTED, details),
  persistentSubscriptionDoesNotExist: (streamName: string, groupName: string) =>
    grpcError(grpc.status.NOT_FOUND, `Subscription group ${groupName} on stream ${streamName} does not exist.`, {
      exception: 'persistent-subscription-does-not-exist',
      'stream-name': streamName,
      'group-name': groupName,
    }),
  persistentSubscriptionExists: (streamName: string, groupName: string) =>
    grpcError(grpc.status.ALREADY_EXISTS, `Subscription group ${groupName} on stream ${streamName} exists.`, {
      exception: 'persistent-subscription-exists',
      'stream-name': streamName,
      'group-name': groupName,
    }),
  persistentSubscriptionFailed: (streamName: string, groupName: string, reason: string) =>
    grpcError(grpc.status.INTERNAL, `Subscription group ${groupName} on stream ${streamName} failed: ${reason}`, {
      exception: 'persistent-subscription-failed',
      'stream-name': streamName,
      'group-name': groupName,
      reason,
    }),
  /** KurrentDB's code for a consumer the server dropped (group deleted or changed, consumer too slow). */
  persistentSubscriptionDropped: (streamName: string, groupName: string, reason: string) =>
    grpcError(grpc.status.CANCELLED, `Subscription group ${groupName} on stream ${streamName} was dropped: ${reason}`, {
      exception: 'persistent-subscription-dropped',
      'stream-name': streamName,
      'group-name': groupName,
    }),
  maximumSubscribersReached: (streamName: string, groupName: string) =>
    grpcError(
      grpc.status.FAILED_PRECONDITION,
      `Maximum subscriptions reached for subscription group '${groupName}' on stream '${streamName}'.`,
      { exception: 'maximum-subscribers-reached', 'stream-name': streamName, 'group-name': groupName },
    ),
  userNotFound: (loginName: string) =>
    grpcError(grpc.status.NOT_FOUND, `User '${loginName}' is not found.`, {
      exception: 'user-not-found',
      'login-name': loginName,
    }),
  userConflict: (loginName: string, details: string) =>
    grpcError(grpc.status.FAILED_PRECONDITION, details, { exception: 'user-conflict', 'login-name': loginName }),
  scavengeNotFound: (scavengeId: string) =>
    grpcError(grpc.status.NOT_FOUND, `Scavenge '${scavengeId}' is not found.`, {
      exception: 'scavenge-not-found',
      'scavenge-id': scavengeId,
    }),
};

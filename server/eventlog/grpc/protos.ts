import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { appPath } from '../../app-root.ts';

/**
 * The KurrentDB client protocol's services, loaded by reflection from proto/kurrentdb/protocols/v1.
 * Message objects use the .proto field names as written (snake_case), 64-bit integers as decimal
 * strings (never JS numbers: revisions and positions are uint64), bytes as Buffers, and each oneof's
 * chosen case under the oneof's own name (e.g. `content: 'event'`).
 */
const PROTO_ROOT = appPath('proto');
const FILES = [
  'streams',
  'persistentsubscriptions',
  'serverfeatures',
  'gossip',
  'operations',
  'usermanagement',
  'monitoring',
  'projectionmanagement',
] as const;

let loaded: grpc.GrpcObject | null = null;

function root(): grpc.GrpcObject {
  loaded ??= grpc.loadPackageDefinition(
    protoLoader.loadSync(
      FILES.map((f) => `kurrentdb/protocols/v1/${f}.proto`),
      { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, bytes: Buffer, oneofs: true },
    ),
  );
  return loaded;
}

/**
 * A request that did not decode. grpc-js answers INTERNAL for a deserializer that throws (which the
 * clients take for a server failure and reconnect); the handlers answer INVALID_ARGUMENT instead.
 */
export class MalformedMessage {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

/**
 * A service definition by its full name, e.g. `event_store.client.streams.Streams`, whose request
 * deserializers hand a MalformedMessage to the handler instead of throwing.
 */
export function serviceDefinition(fullName: string): grpc.ServiceDefinition {
  let node: unknown = root();
  for (const part of fullName.split('.')) node = (node as Record<string, unknown>)[part];
  const ctor = node as { service?: grpc.ServiceDefinition } | undefined;
  if (!ctor?.service) throw new Error(`no gRPC service ${fullName} in ${PROTO_ROOT}`);
  const wrapped: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(ctor.service)) {
    wrapped[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch (err) {
          return new MalformedMessage((err as Error).message);
        }
      },
    };
  }
  return wrapped;
}

/** A client constructor for a service (tests speak to the server with it, e.g. for malformed input). */
export function serviceClient(fullName: string): grpc.ServiceClientConstructor {
  let node: unknown = root();
  for (const part of fullName.split('.')) node = (node as Record<string, unknown>)[part];
  return node as grpc.ServiceClientConstructor;
}

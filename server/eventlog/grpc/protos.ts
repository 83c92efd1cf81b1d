import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
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
const require = createRequire(import.meta.url);

function root(): grpc.GrpcObject {
  // proto-loader (and the parse) only once the first gRPC connection needs the service definitions.
  const protoLoader = require('@grpc/proto-loader') as typeof import('@grpc/proto-loader');
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
      // Hot answers (events) arrive encoded already (encodeMessage); everything else is encoded here.
      responseSerialize: (value: unknown) =>
        value instanceof Uint8Array ? (value as Buffer) : method.responseSerialize(value),
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

let direct: protobuf.Root | null = null;
const directTypes = new Map<string, protobuf.Type>();

function directType(typeName: string): protobuf.Type {
  let type = directTypes.get(typeName);
  if (!type) {
    if (!direct) {
      const root = new protobuf.Root();
      root.resolvePath = (_origin, target) => (target.startsWith('google/') ? target : `${PROTO_ROOT}/${target}`);
      direct = root.loadSync(
        FILES.map((f) => `kurrentdb/protocols/v1/${f}.proto`),
        { keepCase: true },
      );
    }
    type = direct.lookupType(typeName);
    directTypes.set(typeName, type);
  }
  return type;
}

/**
 * Encodes a message straight from a plain object whose fields already have their wire types (numbers
 * for 64-bit integers, Buffers for bytes, numbers for enums), skipping the conversion proto-loader's
 * serializer does first: for the messages sent once per event.
 */
export function encodeMessage(typeName: string, value: object): Buffer {
  const bytes = directType(typeName).encode(value).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Encodes a message of shared.proto (e.g. `event_store.client.WrongExpectedVersion`) as the
 * `google.protobuf.Any` that BatchAppend errors carry in their `google.rpc.Status`.
 */
export function packAny(typeName: string, value: Record<string, unknown>): { type_url: string; value: Buffer } {
  const type = directType(typeName);
  return {
    type_url: `type.googleapis.com/${typeName}`,
    value: Buffer.from(type.encode(type.fromObject(value)).finish()),
  };
}

import protobuf from 'protobufjs';
import { appPath } from '../../app-root.ts';

/**
 * The protocol's protobuf messages, loaded by reflection from proto/ClientMessageDtos.proto.
 * Field names are protobufjs camelCase (`event_stream_id` → `eventStreamId`).
 *
 * protobufjs does not check required fields when encoding, and an unset required field would be
 * written as garbage or crash the encoder. `encodeMessage` therefore checks every required field
 * (recursively) first: a strict client (node-eventstore-client 0.2.x) rejects a reply missing one.
 */

const PROTO_FILE = appPath('proto', 'ClientMessageDtos.proto');
const PACKAGE = 'EventStore.Client.Messages';

const root = protobuf.loadSync(PROTO_FILE);
root.resolveAll();

/** Wire int64: a JS number when safe, or the raw two-halves form (decoded values, long.MaxValue). */
export type Int64 = number | { low: number; high: number; unsigned?: boolean };

export type MessageName =
  | 'NewEvent'
  | 'EventRecord'
  | 'ResolvedIndexedEvent'
  | 'ResolvedEvent'
  | 'Filter'
  | 'WriteEvents'
  | 'WriteEventsCompleted'
  | 'DeleteStream'
  | 'DeleteStreamCompleted'
  | 'TransactionStart'
  | 'TransactionStartCompleted'
  | 'TransactionWrite'
  | 'TransactionWriteCompleted'
  | 'TransactionCommit'
  | 'TransactionCommitCompleted'
  | 'ReadEvent'
  | 'ReadEventCompleted'
  | 'ReadStreamEvents'
  | 'ReadStreamEventsCompleted'
  | 'ReadAllEvents'
  | 'ReadAllEventsCompleted'
  | 'FilteredReadAllEvents'
  | 'FilteredReadAllEventsCompleted'
  | 'CreatePersistentSubscription'
  | 'UpdatePersistentSubscription'
  | 'DeletePersistentSubscription'
  | 'CreatePersistentSubscriptionCompleted'
  | 'UpdatePersistentSubscriptionCompleted'
  | 'DeletePersistentSubscriptionCompleted'
  | 'ConnectToPersistentSubscription'
  | 'PersistentSubscriptionAckEvents'
  | 'PersistentSubscriptionNakEvents'
  | 'PersistentSubscriptionConfirmation'
  | 'PersistentSubscriptionStreamEventAppeared'
  | 'SubscribeToStream'
  | 'FilteredSubscribeToStream'
  | 'CheckpointReached'
  | 'SubscriptionConfirmation'
  | 'StreamEventAppeared'
  | 'UnsubscribeFromStream'
  | 'SubscriptionDropped'
  | 'NotHandled'
  | 'NotHandled.LeaderInfo'
  | 'ScavengeDatabase'
  | 'ScavengeDatabaseResponse'
  | 'IdentifyClient'
  | 'ClientIdentified';

interface RequiredCheck {
  required: string[];
  /** Message-typed fields to check recursively (when present). */
  nested: { name: string; repeated: boolean; type: protobuf.Type }[];
}

const types = new Map<string, protobuf.Type>();
const checks = new Map<protobuf.Type, RequiredCheck>();

export function messageType(name: MessageName): protobuf.Type {
  let type = types.get(name);
  if (!type) {
    type = root.lookupType(`${PACKAGE}.${name}`);
    types.set(name, type);
  }
  return type;
}

function checkFor(type: protobuf.Type): RequiredCheck {
  let check = checks.get(type);
  if (!check) {
    check = { required: [], nested: [] };
    for (const field of type.fieldsArray) {
      if (field.required) check.required.push(field.name);
      if (field.resolvedType instanceof protobuf.Type) {
        check.nested.push({ name: field.name, repeated: field.repeated, type: field.resolvedType });
      }
    }
    checks.set(type, check);
  }
  return check;
}

export class MissingRequiredFieldError extends Error {
  readonly code = 'HOMEPORT_PROTO_REQUIRED';
}

function assertRequired(type: protobuf.Type, value: Record<string, unknown>, where: string): void {
  const check = checkFor(type);
  for (const name of check.required) {
    if (value[name] === undefined || value[name] === null)
      throw new MissingRequiredFieldError(`${where}: required field '${name}' is not set`);
  }
  for (const nested of check.nested) {
    const v = value[nested.name];
    if (v === undefined || v === null) continue;
    if (nested.repeated) {
      const list = v as Record<string, unknown>[];
      for (let i = 0; i < list.length; i++) assertRequired(nested.type, list[i], `${where}.${nested.name}[${i}]`);
    } else {
      assertRequired(nested.type, v as Record<string, unknown>, `${where}.${nested.name}`);
    }
  }
}

/** Encodes a message after checking that every required field (also of nested messages) is set. */
export function encodeMessage(name: MessageName, value: object): Uint8Array {
  const type = messageType(name);
  assertRequired(type, value as Record<string, unknown>, name);
  return type.encode(value).finish();
}

/** Decodes a message; throws when the bytes are malformed or a required field is missing. */
export function decodeMessage<T>(name: MessageName, bytes: Uint8Array): T {
  return messageType(name).decode(bytes) as unknown as T;
}

/** Numeric value of an enum member, e.g. enumValue('ReadEventCompleted.ReadEventResult', 'NotFound'). */
export function enumValue(enumName: string, member: string): number {
  const e = root.lookupEnum(`${PACKAGE}.${enumName}`);
  const v = e.values[member];
  if (v === undefined) throw new RangeError(`${enumName} has no member ${member}`);
  return v;
}

/** name → number table of an enum, for mapping store results onto the wire. */
export function enumTable<K extends string>(enumName: string): Record<K, number> {
  return { ...root.lookupEnum(`${PACKAGE}.${enumName}`).values } as Record<K, number>;
}

// ---- shapes of the decoded requests the core handlers use (protobufjs camelCase) ----

export interface NewEventMessage {
  eventId: Uint8Array;
  eventType: string;
  dataContentType: number;
  metadataContentType: number;
  data: Uint8Array;
  metadata?: Uint8Array;
}

export interface EventRecordMessage {
  eventStreamId: string;
  eventNumber: Int64;
  eventId: Uint8Array;
  eventType: string;
  dataContentType: number;
  metadataContentType: number;
  data: Uint8Array;
  metadata?: Uint8Array;
  created?: Int64;
  createdEpoch?: Int64;
}

export interface ResolvedIndexedEventMessage {
  event?: EventRecordMessage;
  link?: EventRecordMessage;
}

export interface ResolvedEventMessage extends ResolvedIndexedEventMessage {
  commitPosition: Int64;
  preparePosition: Int64;
}

export interface FilterMessage {
  context: number;
  type: number;
  data: string[];
}

export interface WriteEventsMessage {
  eventStreamId: string;
  expectedVersion: Int64;
  events: NewEventMessage[];
  requireLeader: boolean;
}

export interface DeleteStreamMessage {
  eventStreamId: string;
  expectedVersion: Int64;
  requireLeader: boolean;
  hardDelete: boolean;
}

export interface TransactionStartMessage {
  eventStreamId: string;
  expectedVersion: Int64;
  requireLeader: boolean;
}

export interface TransactionWriteMessage {
  transactionId: Int64;
  events: NewEventMessage[];
  requireLeader: boolean;
}

export interface TransactionCommitMessage {
  transactionId: Int64;
  requireLeader: boolean;
}

export interface ReadEventMessage {
  eventStreamId: string;
  eventNumber: Int64;
  resolveLinkTos: boolean;
  requireLeader: boolean;
}

export interface ReadStreamEventsMessage {
  eventStreamId: string;
  fromEventNumber: Int64;
  maxCount: number;
  resolveLinkTos: boolean;
  requireLeader: boolean;
}

export interface ReadAllEventsMessage {
  commitPosition: Int64;
  preparePosition: Int64;
  maxCount: number;
  resolveLinkTos: boolean;
  requireLeader: boolean;
}

export interface FilteredReadAllEventsMessage extends ReadAllEventsMessage {
  maxSearchWindow: number;
  filter: FilterMessage;
}

export interface IdentifyClientMessage {
  version: number;
  connectionName?: string;
}

/**
 * Stream metadata (`$$stream`), system settings (`$settings`) and the access rules that use them,
 * following EventStoreDB: a metadata document with a malformed reserved key counts as empty metadata,
 * and role lists fall back from the stream's `$acl` to `$settings` to the built-in defaults.
 */
import crypto from 'node:crypto';
import { EVENT_NUMBER_DELETED, type Caller, type NewEvent, type StreamAcl, type StreamMetadata } from './types.ts';

export const SystemStreams = {
  All: '$all',
  Settings: '$settings',
  Scavenges: '$scavenges',
  Users: '$users',
  PasswordNotifications: '$users-password-notifications',
} as const;

export const SystemEventTypes = {
  Metadata: '$metadata',
  StreamDeleted: '$streamDeleted',
  LinkTo: '$>',
  Settings: '$settings',
  ScavengeStarted: '$scavengeStarted',
  ScavengeCompleted: '$scavengeCompleted',
} as const;

export const SystemRoles = { All: '$all', Admins: '$admins', Ops: '$ops' } as const;

export type AccessKind = 'read' | 'write' | 'delete' | 'metaRead' | 'metaWrite';

export function isMetastream(streamId: string): boolean {
  return streamId.startsWith('$$');
}
export function isSystemStream(streamId: string): boolean {
  return streamId.startsWith('$');
}
export function metastreamOf(streamId: string): string {
  return `$$${streamId}`;
}
export function originalStreamOf(metastreamId: string): string {
  return metastreamId.slice(2);
}
/** The part of a stream name before its first '-', for user streams that have one. */
export function categoryOf(streamId: string): string | null {
  if (isSystemStream(streamId)) return null;
  const dash = streamId.indexOf('-');
  return dash > 0 ? streamId.slice(0, dash) : null;
}

/** Metadata as loaded from the last `$$stream` event: typed view plus the raw JSON object (null when not an object). */
export interface LoadedMetadata {
  metadata: StreamMetadata;
  doc: Record<string, unknown> | null;
}

export const EMPTY_METADATA: LoadedMetadata = Object.freeze({
  metadata: Object.freeze({ raw: {} }),
  doc: null,
}) as LoadedMetadata;
/** Every `$$stream` behaves as if `$maxCount = 1` (EventStoreDB's MetaStreamMaxCount). */
export const METASTREAM_METADATA: StreamMetadata = Object.freeze({ maxCount: 1, raw: {} });

const ACL_KEYS = {
  $r: 'readRoles',
  $w: 'writeRoles',
  $d: 'deleteRoles',
  $mr: 'metaReadRoles',
  $mw: 'metaWriteRoles',
} as const;

class MalformedMetadata extends Error {}

/** Integers beyond 2^53 (e.g. `$tb: 9223372036854775807`) arrive as doubles; clamp them to the safe range. */
function integerValue(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new MalformedMetadata();
  if (v >= Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  if (v <= Number.MIN_SAFE_INTEGER) return Number.MIN_SAFE_INTEGER;
  return v;
}

function roles(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((r) => typeof r === 'string')) return [...v];
  throw new MalformedMetadata();
}

export function parseAcl(v: unknown): StreamAcl {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new MalformedMetadata();
  const acl: StreamAcl = {};
  for (const [key, field] of Object.entries(ACL_KEYS)) {
    const value = (v as Record<string, unknown>)[key];
    if (value !== undefined) acl[field] = roles(value);
  }
  return acl;
}

function parseJsonObject(data: Uint8Array): Record<string, unknown> | null {
  if (data.byteLength === 0) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Parses a `$metadata` event's payload; non-JSON events and malformed documents give empty metadata. */
export function parseStreamMetadata(isJson: boolean, data: Uint8Array): LoadedMetadata {
  const doc = parseJsonObject(data);
  if (!isJson || !doc) return { metadata: { raw: {} }, doc };
  try {
    const metadata: StreamMetadata = { raw: doc };
    if (doc.$maxCount !== undefined) {
      const n = integerValue(doc.$maxCount);
      if (n > 0) metadata.maxCount = n;
    }
    if (doc.$maxAge !== undefined) {
      const n = integerValue(doc.$maxAge);
      if (n > 0) metadata.maxAge = n;
    }
    if (doc.$tb !== undefined) {
      const n = integerValue(doc.$tb);
      if (n >= 0) metadata.truncateBefore = n >= EVENT_NUMBER_DELETED ? EVENT_NUMBER_DELETED : n;
    }
    if (doc.$cacheControl !== undefined) {
      const n = integerValue(doc.$cacheControl);
      if (n > 0) metadata.cacheControl = n;
    }
    if (doc.$tmp !== undefined && typeof doc.$tmp !== 'boolean') throw new MalformedMetadata();
    if (doc.$acl !== undefined) metadata.acl = parseAcl(doc.$acl);
    return { metadata, doc };
  } catch (err) {
    if (err instanceof MalformedMetadata) return { metadata: { raw: doc }, doc };
    throw err;
  }
}

/** The smallest event number a stream read may return, from `$maxCount` and `$tb`. */
export function minReadableEventNumber(metadata: StreamMetadata, lastEventNumber: number): number {
  let min = 0;
  if (metadata.maxCount !== undefined) min = Math.max(min, lastEventNumber - metadata.maxCount + 1);
  if (metadata.truncateBefore !== undefined) min = Math.max(min, metadata.truncateBefore);
  return min;
}

export interface SystemSettings {
  userStreamAcl?: StreamAcl;
  systemStreamAcl?: StreamAcl;
}

const ALL_ROLES: StreamAcl = Object.freeze({
  readRoles: [SystemRoles.All],
  writeRoles: [SystemRoles.All],
  deleteRoles: [SystemRoles.All],
  metaReadRoles: [SystemRoles.All],
  metaWriteRoles: [SystemRoles.All],
});
const ADMIN_ROLES: StreamAcl = Object.freeze({
  readRoles: [SystemRoles.Admins],
  writeRoles: [SystemRoles.Admins],
  deleteRoles: [SystemRoles.Admins],
  metaReadRoles: [SystemRoles.Admins],
  metaWriteRoles: [SystemRoles.Admins],
});

/** Parses the last `$settings` event; anything unreadable means the built-in defaults. */
export function parseSystemSettings(isJson: boolean, data: Uint8Array): SystemSettings {
  const doc = isJson ? parseJsonObject(data) : null;
  if (!doc) return {};
  try {
    const settings: SystemSettings = {};
    if (doc.$userStreamAcl !== undefined) settings.userStreamAcl = parseAcl(doc.$userStreamAcl);
    if (doc.$systemStreamAcl !== undefined) settings.systemStreamAcl = parseAcl(doc.$systemStreamAcl);
    return settings;
  } catch (err) {
    if (err instanceof MalformedMetadata) return {};
    throw err;
  }
}

const ROLE_FIELD = {
  read: 'readRoles',
  write: 'writeRoles',
  delete: 'deleteRoles',
  metaRead: 'metaReadRoles',
  metaWrite: 'metaWriteRoles',
} as const satisfies Record<AccessKind, keyof StreamAcl>;

/**
 * EventStoreDB's CheckStreamAccess for a non-metastream: the stream's `$acl`, else the `$settings`
 * default for user/system streams, else the built-in default; `$all` in the list admits everybody
 * (anonymous included), `$admins` members pass everything, others need their name or a group listed.
 */
export function aclAllows(
  streamId: string,
  access: AccessKind,
  caller: Caller,
  streamAcl: StreamAcl | undefined,
  settings: SystemSettings,
): boolean {
  const system = isSystemStream(streamId);
  const defaults = system ? ADMIN_ROLES : ALL_ROLES;
  const settingsAcl = (system ? settings.systemStreamAcl : settings.userStreamAcl) ?? defaults;
  const acl = streamAcl ?? settingsAcl;
  const field = ROLE_FIELD[access];
  const list = acl[field] ?? settingsAcl[field] ?? defaults[field] ?? [];
  if (list.includes(SystemRoles.All)) return true;
  if (!caller) return false;
  if (caller.groups.includes(SystemRoles.Admins)) return true;
  return list.some((role) => role === caller.name || caller.groups.includes(role));
}

/** Soft-delete marker document, exactly as EventStoreDB writes it. */
export const SOFT_DELETE_METADATA = Buffer.from('{"$tb":9223372036854775807}');

/** Serializes a metadata document, writing `$tb` = deleted as the exact Int64.MaxValue literal. */
export function serializeMetadataDocument(doc: Record<string, unknown>): Buffer {
  const tb = doc.$tb;
  if (typeof tb === 'number' && tb >= EVENT_NUMBER_DELETED) {
    const marker = '__homeport_tb_deleted__';
    return Buffer.from(JSON.stringify({ ...doc, $tb: marker }).replace(`"${marker}"`, '9223372036854775807'));
  }
  return Buffer.from(JSON.stringify(doc));
}

/** A JSON event with a fresh id, for the records the store and its users write themselves. */
export function jsonEvent(eventType: string, body: unknown): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType,
    isJson: true,
    data: Buffer.from(JSON.stringify(body)),
    metadata: new Uint8Array(0),
  };
}

/**
 * Checkpoint tags as EventStoreDB writes them: in checkpoint events' metadata, and at the head of the
 * metadata of every event a projection emits (`$v`, then the position of the event that caused it, then
 * extra keys, `$causedBy` and `$correlationId`). The caused-by position is what makes emitted events
 * traceable to their source; our recovery does not need it (links and checkpoints commit together).
 */
import { PROJECTION_SUBSYSTEM_VERSION } from './names.ts';

/** A position in the projection's input: `$all` (commit, prepare), or per-stream event numbers. */
export type CheckpointTag =
  | { kind: 'position'; commitPosition: number; preparePosition: number }
  | { kind: 'streams'; streams: Record<string, number> };
export type PositionTag = Extract<CheckpointTag, { kind: 'position' }>;

/** `$all` order of two positions (events, cursors, position tags): negative when `a` comes first. */
export function allOrder(
  a: { commitPosition: number; preparePosition: number },
  b: { commitPosition: number; preparePosition: number },
): number {
  return a.commitPosition - b.commitPosition || a.preparePosition - b.preparePosition;
}

/** Which incarnation of a projection wrote something: its id, the epoch (bumped by reset) and the version. */
export interface ProjectionVersion {
  id: number;
  epoch: number;
  version: number;
}

export function versionText(v: ProjectionVersion): string {
  return `${v.id}:${v.epoch}:${v.version}:${PROJECTION_SUBSYSTEM_VERSION}`;
}

/** The tag's own keys (`$c`/`$p` or `$s`), in EventStoreDB's order. */
function tagFields(tag: CheckpointTag): Record<string, unknown> {
  return tag.kind === 'position'
    ? { $c: tag.commitPosition, $p: tag.preparePosition }
    : { $s: Object.fromEntries(Object.entries(tag.streams)) };
}

/** The tag as JSON, with `$v` when a version is given (checkpoint metadata) and without it (`$et` checkpoints). */
export function tagJson(tag: CheckpointTag, version?: ProjectionVersion): string {
  return JSON.stringify({ ...(version ? { $v: versionText(version) } : {}), ...tagFields(tag) });
}

export interface EmittedMetadataParts {
  version: ProjectionVersion;
  tag: CheckpointTag;
  /** Extra keys with their values (already JSON-compatible), e.g. `$o`, `$deleted`, user metadata. */
  extra?: Record<string, unknown>;
  causedBy?: string;
  correlationId?: string;
}

/** An emitted event's metadata, key by key as EventStoreDB writes it. */
export function emittedMetadata(parts: EmittedMetadataParts): string {
  const doc: Record<string, unknown> = { $v: versionText(parts.version), ...tagFields(parts.tag) };
  let correlationFound = false;
  for (const [key, value] of Object.entries(parts.extra ?? {})) {
    if (key === '$causedBy' || value === undefined) continue;
    if (key === '$correlationId') correlationFound = true;
    doc[key] = value;
  }
  if (parts.causedBy) doc.$causedBy = parts.causedBy;
  if (!correlationFound && parts.correlationId) doc.$correlationId = parts.correlationId;
  return JSON.stringify(doc);
}

export interface ParsedTag {
  version: ProjectionVersion | null;
  tag: CheckpointTag | null;
}

/** Reads a tag back (current `$v`/`$c`/`$p`/`$s` keys and the older `c`/`p`/`s` ones). */
export function parseTag(text: string): ParsedTag {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { version: null, tag: null };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { version: null, tag: null };
  const o = doc as Record<string, unknown>;
  let version: ProjectionVersion | null = null;
  const v = o.$v ?? o.v;
  if (typeof v === 'string') {
    const parts = v.split(':').map(Number);
    if (parts.length >= 3 && parts.every(Number.isSafeInteger))
      version = { id: parts[0], epoch: parts[1], version: parts[2] };
  }
  const c = o.$c ?? o.c ?? o.commitPosition;
  const p = o.$p ?? o.p ?? o.preparePosition;
  const s = o.$s ?? o.s;
  let tag: CheckpointTag | null = null;
  if (typeof c === 'number' && typeof p === 'number') tag = { kind: 'position', commitPosition: c, preparePosition: p };
  else if (s && typeof s === 'object' && !Array.isArray(s)) {
    const streams: Record<string, number> = {};
    for (const [k, n] of Object.entries(s)) if (typeof n === 'number') streams[k] = n;
    tag = { kind: 'streams', streams };
  }
  return { version, tag };
}

/** The tag as the statistics show it: `C:<c>/P:<p>` or `a: 1; b: 2; `. */
export function tagDisplay(tag: CheckpointTag | null): string {
  if (!tag) return '';
  if (tag.kind === 'position') return `C:${tag.commitPosition}/P:${tag.preparePosition}`;
  const entries = Object.entries(tag.streams);
  if (entries.length === 1) return `${entries[0][0]}: ${entries[0][1]}`;
  return entries.map(([k, n]) => `${k}: ${n}; `).join('');
}

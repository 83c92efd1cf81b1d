import type { EventFilter, Position } from '../../store/index.ts';
import { Errors } from '../errors.ts';

/** `ReadReq.Options` as decoded (proto field names, oneof cases named by their oneof). */
export interface WireReadOptions {
  stream_option?: 'stream' | 'all';
  stream?: {
    stream_identifier?: { stream_name?: Buffer };
    revision_option?: 'revision' | 'start' | 'end';
    revision?: string;
  };
  all?: {
    all_option?: 'position' | 'start' | 'end';
    position?: { commit_position?: string; prepare_position?: string };
  };
  read_direction?: string | number;
  resolve_links?: boolean;
  count_option?: 'count' | 'subscription';
  count?: string;
  filter_option?: 'filter' | 'no_filter';
  filter?: WireFilterOptions;
  uuid_option?: { content?: 'structured' | 'string' };
  control_option?: { compatibility?: number };
}

export interface WireFilterOptions {
  filter?: 'stream_identifier' | 'event_type';
  stream_identifier?: { regex?: string; prefix?: string[] };
  event_type?: { regex?: string; prefix?: string[] };
  window?: 'max' | 'count';
  max?: number;
  checkpointIntervalMultiplier?: number;
}

/** A start point: `start`, `end`, or an explicit revision/position. */
export type From<T> = { kind: 'start' } | { kind: 'end' } | { kind: 'at'; at: T };

export interface ParsedFilter {
  filter: EventFilter;
  /** Events examined per page (`max`), or 32 for `count` as KurrentDB. */
  window: number;
  /** Checkpoints every `window × multiplier` examined events. */
  checkpointEvery: number;
}

export type ReadPlan =
  | { target: 'stream'; streamId: string; from: From<number>; mode: ReadMode }
  | { target: 'all'; from: From<Position>; mode: ReadMode; filter: ParsedFilter | null };

export type ReadMode = { kind: 'count'; count: number; backwards: boolean } | { kind: 'subscription' };

export interface ParsedRead {
  plan: ReadPlan;
  resolveLinks: boolean;
  structuredIds: boolean;
}

const DEFAULT_FILTER_WINDOW = 32;

/** A uint64 that may be "everything" (u64::MAX): past 2^53 it is as good as infinite for a SQLite log. */
function clampedU64(text: string | undefined): number {
  const n = Number(text ?? '0');
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

export function parseFilter(wire: WireFilterOptions): ParsedFilter {
  const expression = wire.filter === 'stream_identifier' ? wire.stream_identifier : wire.event_type;
  if (!wire.filter || !expression) throw Errors.invalidArgument('filter needs a stream_identifier or event_type');
  const context = wire.filter === 'stream_identifier' ? 'StreamId' : 'EventType';
  const regex = expression.regex ?? '';
  const prefixes = expression.prefix ?? [];
  const filter: EventFilter =
    regex !== '' ? { context, type: 'Regex', data: [regex] } : { context, type: 'Prefix', data: prefixes };
  if (filter.type === 'Prefix' && filter.data.length === 0)
    throw Errors.invalidArgument('filter needs a regex or at least one prefix');
  const window = wire.window === 'max' ? (wire.max ?? 0) : DEFAULT_FILTER_WINDOW;
  if (!Number.isSafeInteger(window) || window <= 0) throw Errors.invalidArgument('filter max must be positive');
  const multiplier = wire.checkpointIntervalMultiplier || 1;
  return { filter, window, checkpointEvery: window * multiplier };
}

/** Checks the combination as KurrentDB does (anything else is INVALID_ARGUMENT). */
export function parseReadOptions(options: WireReadOptions | undefined): ParsedRead {
  if (!options) throw Errors.invalidArgument('ReadReq.options is required');
  if (!options.uuid_option?.content) throw Errors.invalidArgument('uuid_option is required');
  const structuredIds = options.uuid_option.content === 'structured';
  const direction = options.read_direction ?? 'FORWARDS';
  if (direction !== 'FORWARDS' && direction !== 'BACKWARDS') throw Errors.invalidArgument('unknown read_direction');
  const backwards = direction === 'BACKWARDS';
  let mode: ReadMode;
  if (options.count_option === 'count') mode = { kind: 'count', count: clampedU64(options.count), backwards };
  else if (options.count_option === 'subscription') {
    if (backwards) throw Errors.invalidArgument('subscriptions read forwards only');
    mode = { kind: 'subscription' };
  } else throw Errors.invalidArgument('count_option (count or subscription) is required');
  const resolveLinks = options.resolve_links === true;

  if (options.stream_option === 'stream') {
    if (options.filter_option === 'filter') throw Errors.invalidArgument('stream reads take no filter');
    const name = options.stream?.stream_identifier?.stream_name;
    const streamId = name ? name.toString('utf8') : '';
    if (streamId === '') throw Errors.invalidArgument('stream_identifier is required');
    const option = options.stream?.revision_option;
    let from: From<number>;
    if (option === 'start') from = { kind: 'start' };
    else if (option === 'end') from = { kind: 'end' };
    else if (option === 'revision') from = { kind: 'at', at: clampedU64(options.stream?.revision) };
    else throw Errors.invalidArgument('revision_option is required');
    return { plan: { target: 'stream', streamId, from, mode }, resolveLinks, structuredIds };
  }
  if (options.stream_option === 'all') {
    const option = options.all?.all_option;
    let from: From<Position>;
    if (option === 'start') from = { kind: 'start' };
    else if (option === 'end') from = { kind: 'end' };
    else if (option === 'position') {
      from = {
        kind: 'at',
        at: {
          commitPosition: clampedU64(options.all?.position?.commit_position),
          preparePosition: clampedU64(options.all?.position?.prepare_position),
        },
      };
    } else throw Errors.invalidArgument('all_option is required');
    const filter = options.filter_option === 'filter' && options.filter ? parseFilter(options.filter) : null;
    return { plan: { target: 'all', from, mode, filter }, resolveLinks, structuredIds };
  }
  throw Errors.invalidArgument('stream_option (stream or all) is required');
}

import type { Caller, EventStore, Position, ReadAllResult, ReadStreamResult } from '../../store/index.ts';
import type { Outbox } from '../call-support.ts';
import { Errors } from '../errors.ts';
import { readEventResp } from './events.ts';
import type { ParsedFilter, ParsedRead } from './read-request.ts';

/** Events fetched per store read; the outbox waits for the client between pages. */
export const READ_PAGE = 512;

function streamFailure(streamId: string, result: ReadStreamResult): Error | null {
  switch (result.result) {
    case 'Success':
    case 'NoStream':
      return null;
    case 'StreamDeleted':
      return Errors.streamDeleted(streamId);
    case 'AccessDenied':
      return Errors.accessDenied();
    default:
      return Errors.invalidArgument(result.error ?? `read of ${streamId} failed`);
  }
}

export function allFailure(result: ReadAllResult): Error | null {
  if (result.result === 'Success') return null;
  if (result.result === 'AccessDenied') return Errors.accessDenied();
  return Errors.invalidArgument(result.error ?? 'read of $all failed');
}

/** A count read of one stream: events, or one `stream_not_found`, then OK. */
export async function readStreamCount(
  store: EventStore,
  streamId: string,
  read: ParsedRead,
  from: number | 'end',
  count: number,
  backwards: boolean,
  caller: Caller,
  out: Outbox<unknown>,
): Promise<void> {
  let next = from === 'end' ? -1 : from;
  let remaining = count;
  let first = true;
  while (remaining > 0) {
    const page = Math.min(remaining, READ_PAGE);
    const result = backwards
      ? store.readStreamBackward(streamId, next, page, read.resolveLinks, caller)
      : store.readStreamForward(streamId, next, page, read.resolveLinks, caller);
    const failure = streamFailure(streamId, result);
    if (failure) throw failure;
    if (result.result === 'NoStream') {
      if (first) await out.send({ stream_not_found: { stream_identifier: { stream_name: Buffer.from(streamId) } } });
      break;
    }
    first = false;
    for (const entry of result.events) {
      if (!(await out.send(readEventResp(entry, read.structuredIds)))) return;
    }
    remaining -= result.events.length;
    if (result.isEndOfStream || result.events.length === 0) break;
    next = result.nextEventNumber;
  }
  out.end();
}

export const LOG_START: Position = { commitPosition: 0, preparePosition: 0 };
export const LOG_END: Position = { commitPosition: -1, preparePosition: -1 };

/** A count read of `$all`, plain or filtered. */
export async function readAllCount(
  store: EventStore,
  read: ParsedRead,
  from: Position,
  count: number,
  backwards: boolean,
  filter: ParsedFilter | null,
  caller: Caller,
  out: Outbox<unknown>,
): Promise<void> {
  let next = from;
  let remaining = count;
  while (remaining > 0) {
    const page = Math.min(remaining, READ_PAGE);
    let result: ReadAllResult;
    if (filter) {
      const read_ = backwards ? store.filteredReadAllBackward : store.filteredReadAllForward;
      result = read_.call(store, next, page, Math.max(filter.window, page), filter.filter, read.resolveLinks, caller);
    } else {
      result = backwards
        ? store.readAllBackward(next, page, read.resolveLinks, caller)
        : store.readAllForward(next, page, read.resolveLinks, caller);
    }
    const failure = allFailure(result);
    if (failure) throw failure;
    for (const entry of result.events) {
      if (!(await out.send(readEventResp(entry, read.structuredIds, entry.commitPosition)))) return;
    }
    remaining -= result.events.length;
    if (result.isEndOfStream || (result.events.length === 0 && !filter)) break;
    next = result.nextPosition;
  }
  out.end();
}

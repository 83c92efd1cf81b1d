import { compileLinearRegex, type EventFilter, type RecordedEvent } from '../store/index.ts';

/** A compiled subscription filter: true when the event should be delivered. */
export type EventPredicate = (event: RecordedEvent) => boolean;

export class InvalidFilterError extends Error {
  readonly code = 'HOMEPORT_INVALID_FILTER';
}

/**
 * Compiles a wire filter as EventStoreDB applies it: Prefix matches when any of `data` is a prefix of
 * the stream id / event type; Regex uses only `data[0]` and matches anywhere in the text.
 * An absent or empty filter lets everything through.
 */
export function compileEventFilter(filter: EventFilter | null | undefined): EventPredicate {
  if (!filter || filter.data.length === 0) return () => true;
  const pick = filter.context === 'EventType' ? (e: RecordedEvent) => e.eventType : (e: RecordedEvent) => e.streamId;
  if (filter.type === 'Prefix') {
    const prefixes = [...filter.data];
    if (prefixes.length === 1) {
      const only = prefixes[0];
      return (e) => pick(e).startsWith(only);
    }
    return (e) => {
      const text = pick(e);
      return prefixes.some((p) => text.startsWith(p));
    };
  }
  let matches: (text: string) => boolean;
  try {
    matches = compileLinearRegex(filter.data[0]);
  } catch (err) {
    throw new InvalidFilterError(`invalid filter regex ${JSON.stringify(filter.data[0])}: ${(err as Error).message}`);
  }
  return (e) => matches(pick(e));
}

/** Short human form for the monitor, e.g. `EventType prefix [order-, invoice-]`. */
export function describeFilter(filter: EventFilter | null | undefined): string | null {
  if (!filter || filter.data.length === 0) return null;
  const kind = filter.type === 'Prefix' ? 'prefix' : 'regex';
  const data = filter.type === 'Prefix' ? filter.data : filter.data.slice(0, 1);
  return `${filter.context} ${kind} ${data.map((d) => JSON.stringify(d)).join(', ')}`;
}

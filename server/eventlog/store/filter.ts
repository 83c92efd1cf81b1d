import { StoreBadRequestError, type EventFilter } from './types.ts';

/** Decides whether an event passes a filtered `$all` read. */
export type EventPredicate = (streamId: string, eventType: string) => boolean;

/**
 * Compiles a FilteredReadAllEvents filter: Prefix matches when any entry is a prefix; Regex uses only
 * the first entry and matches anywhere (as .NET's Regex.IsMatch). No filter or no entries: everything.
 */
export function compileEventFilter(filter: EventFilter | null): EventPredicate | null {
  if (!filter || filter.data.length === 0) return null;
  const pick = filter.context === 'EventType' ? (_s: string, t: string) => t : (s: string) => s;
  if (filter.type === 'Prefix') {
    const prefixes = [...filter.data];
    return (s, t) => {
      const value = pick(s, t);
      return prefixes.some((p) => value.startsWith(p));
    };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(filter.data[0]);
  } catch (err) {
    throw new StoreBadRequestError(`Invalid filter regex "${filter.data[0]}": ${(err as Error).message}`);
  }
  return (s, t) => regex.test(pick(s, t));
}

import { RE2JS } from 're2js';
import { StoreBadRequestError, type EventFilter } from './types.ts';

/**
 * Compiles a client's filter regex with RE2 semantics (re2js): matching takes time linear in the text, so a
 * pattern such as `^(a+)+$` over crafted stream names cannot stall the event loop every client shares.
 * Backreferences and lookaround, which need backtracking, are refused as invalid. Throws with RE2's reason.
 */
export function compileLinearRegex(pattern: string): (text: string) => boolean {
  const re = RE2JS.compile(pattern);
  return (text) => re.matcher(text).find();
}

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
  let matches: (text: string) => boolean;
  try {
    matches = compileLinearRegex(filter.data[0]);
  } catch (err) {
    throw new StoreBadRequestError(`Invalid filter regex "${filter.data[0]}": ${(err as Error).message}`);
  }
  return (s, t) => matches(pick(s, t));
}

/**
 * EventStoreDB's category rule for `$by_category` and `$stream_by_category`: the query is `first` or
 * `last`, a newline, then a one-character separator (`first\r\n-` by default); a single character means
 * `last` with that separator. Streams starting with `$` have no category.
 */

export type CategoryOf = (streamId: string) => string | null;

export class InvalidCategoryQueryError extends Error {}

export function categoryExtractor(query: string): CategoryOf {
  const text = query.trim();
  let direction: string;
  let separator: string;
  if (text.length === 1) {
    direction = 'last';
    separator = text;
  } else {
    const lines = query.split('\n');
    if (lines.length !== 2) throw new InvalidCategoryQueryError(`Invalid category query: ${JSON.stringify(query)}`);
    direction = lines[0].trim().toLowerCase();
    separator = lines[1];
    if (separator.length !== 1)
      throw new InvalidCategoryQueryError('The separator of a category query must be exactly one character.');
  }
  if (direction !== 'first' && direction !== 'last')
    throw new InvalidCategoryQueryError(`Unknown category direction: ${JSON.stringify(direction)}`);
  const first = direction === 'first';
  return (streamId) => {
    if (streamId.startsWith('$')) return null;
    const at = first ? streamId.indexOf(separator) : streamId.lastIndexOf(separator);
    return at > 0 ? streamId.slice(0, at) : null;
  };
}

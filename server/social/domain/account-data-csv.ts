import { parse } from 'csv-parse/sync';
import { ValidationFailure } from '../errors.ts';
import type { ImportRowData } from '../store/index.ts';

/* The CSV files of Mastodon's exports and imports as files: their kinds, headers, limits and rows. */

/** The CSV files Mastodon exports and imports (Settings → Import and export), by their file names. */
export const DATA_KINDS = [
  'following_accounts',
  'lists',
  'blocked_accounts',
  'muted_accounts',
  'blocked_domains',
  'bookmarks',
] as const;
export type DataKind = (typeof DATA_KINDS)[number];

/** Rows one import may hold (Mastodon's ROWS_PROCESSING_LIMIT). */
export const MAX_IMPORT_ROWS = 20_000;
/** Largest file one import may be: ample for its rows (a follows file of 20,000 rows is about 1.5 MB). */
export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
export const FOLLOWING_HEADER = ['Account address', 'Show boosts', 'Notify on new posts', 'Languages'];
export const MUTED_HEADER = ['Account address', 'Hide notifications'];
/** The first header cell of each kind's file; a file starting with another kind's is refused (Mastodon's incompatible type). */
export const FIRST_HEADER: Record<DataKind, string> = {
  following_accounts: 'Account address',
  blocked_accounts: 'Account address',
  muted_accounts: 'Account address',
  blocked_domains: '#domain',
  bookmarks: '#uri',
  lists: 'List name',
};

/** A file's rows as Mastodon's import keeps them (its keys, addresses without a leading `@`), one per account, domain, post or list member. */
export function importRows(kind: DataKind, rows: string[][]): ImportRowData[] {
  const unique = new Map<string, ImportRowData>();
  const acctOf = (cell: string | undefined) => (cell ?? '').replace(/^@/, '');
  for (const row of withoutHeader(rows, FIRST_HEADER[kind])) {
    const acct = acctOf(kind === 'lists' ? row[1] : row[0]);
    switch (kind) {
      case 'following_accounts': {
        const [, boosts, notify, languages] = row;
        const langs = (languages ?? '')
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean);
        unique.set(acct.toLowerCase(), {
          acct,
          show_reblogs: boosts !== 'false',
          notify: notify === 'true',
          languages: langs.length ? langs : null,
        });
        break;
      }
      case 'blocked_accounts':
        unique.set(acct.toLowerCase(), { acct });
        break;
      case 'muted_accounts':
        unique.set(acct.toLowerCase(), { acct, hide_notifications: row[1] !== 'false' });
        break;
      case 'blocked_domains':
        unique.set(row[0].toLowerCase(), { domain: row[0].toLowerCase() });
        break;
      case 'bookmarks':
        unique.set(row[0], { uri: row[0] });
        break;
      case 'lists':
        unique.set(`${row[0]}\n${acct.toLowerCase()}`, { list_name: row[0], acct });
        break;
    }
  }
  return [...unique.values()];
}

/** The cells of a CSV file, checked for its size in rows; blank lines left out. */
export function parseRows(csv: string): string[][] {
  let rows: string[][];
  try {
    rows = parse(csv, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true }) as string[][];
  } catch (err) {
    throw ValidationFailure.single('data', 'ERR_INVALID', `is not a CSV file: ${(err as Error).message}`);
  }
  if (rows.length > MAX_IMPORT_ROWS)
    throw ValidationFailure.single('data', 'ERR_TOO_LONG', `holds more than ${MAX_IMPORT_ROWS} rows`);
  return rows.filter((r) => r.length > 0 && r[0] !== '');
}

/** Rows after the header line Mastodon writes (its first cell is `header`), when there is one. */
function withoutHeader(rows: string[][], header: string): string[][] {
  return rows[0]?.[0] === header ? rows.slice(1) : rows;
}

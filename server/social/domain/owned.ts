import { notFound } from '../errors.ts';
import type { Account } from '../store/index.ts';

/** A row that is the user's own; anyone else's, or none, is a 404 (as if it did not exist). */
export function owned<T extends { accountId: string }>(row: T | null, me: Account): T {
  if (!row || row.accountId !== me.id) throw notFound();
  return row;
}

import { bool, int, intOrNull, jsonOr, sqlBool, str, type StoreCore } from './store.ts';

/** Where an import is: waiting for the worker, its rows being worked off, or done (Mastodon's states after confirmation). */
export type ImportState = 'scheduled' | 'in_progress' | 'finished';

/** One row of an import file, with the keys Mastodon's BulkImportRow keeps. */
export interface ImportRowData {
  acct?: string;
  show_reblogs?: boolean;
  notify?: boolean;
  languages?: string[] | null;
  hide_notifications?: boolean;
  domain?: string;
  uri?: string;
  list_name?: string;
}

export interface BulkImport {
  id: string;
  accountId: string;
  type: string;
  overwrite: boolean;
  state: ImportState;
  totalItems: number;
  processedItems: number;
  importedItems: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface ImportRow {
  id: string;
  importId: string;
  /** 0-based among the file's rows (after its header). */
  position: number;
  data: ImportRowData;
}

export interface FailedImportRow extends ImportRow {
  error: string;
}

/** Longest failure reason kept. */
const MAX_ERROR_LENGTH = 300;

/**
 * Mastodon's BulkImport: an import and its rows, stored when it is made and worked off in the background
 * (domain/import-worker.ts). A row is deleted once imported; a failed one stays, with why.
 */
export class ImportRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Stores a scheduled import with its rows (one transaction). */
  create(accountId: string, type: string, overwrite: boolean, rows: readonly ImportRowData[]): BulkImport {
    return this.core.transaction(() => {
      const id = this.core.ids.next();
      this.core
        .sql(
          "INSERT INTO bulk_imports (id, account_id, type, overwrite, state, total_items, created_at) VALUES (?, ?, ?, ?, 'scheduled', ?, ?)",
        )
        .run(id, accountId, type, sqlBool(overwrite), rows.length, this.core.now());
      const insert = this.core.sql('INSERT INTO bulk_import_rows (bulk_import_id, position, data) VALUES (?, ?, ?)');
      rows.forEach((row, position) => insert.run(id, position, JSON.stringify(row)));
      return this.byId(accountId, id)!;
    });
  }

  byId(accountId: string, id: string): BulkImport | null {
    const r = this.core.sql('SELECT * FROM bulk_imports WHERE id = ? AND account_id = ?').get(id, accountId) as
      | Record<string, unknown>
      | undefined;
    return r ? toImport(r) : null;
  }

  /** The account's import of `type` that has not finished, if any. */
  unfinished(accountId: string, type: string): BulkImport | null {
    const r = this.core
      .sql("SELECT * FROM bulk_imports WHERE account_id = ? AND type = ? AND state <> 'finished'")
      .get(accountId, type) as Record<string, unknown> | undefined;
    return r ? toImport(r) : null;
  }

  /** The account's imports, newest first. */
  ofAccount(accountId: string, limit: number): BulkImport[] {
    return (
      this.core
        .sql('SELECT * FROM bulk_imports WHERE account_id = ? ORDER BY id DESC LIMIT ?')
        .all(accountId, limit) as Record<string, unknown>[]
    ).map(toImport);
  }

  /** The oldest import waiting to start. */
  nextScheduled(): BulkImport | null {
    const r = this.core.sql("SELECT * FROM bulk_imports WHERE state = 'scheduled' ORDER BY id LIMIT 1").get() as
      | Record<string, unknown>
      | undefined;
    return r ? toImport(r) : null;
  }

  markInProgress(id: string): void {
    this.core.sql("UPDATE bulk_imports SET state = 'in_progress' WHERE id = ? AND state = 'scheduled'").run(id);
  }

  /** The rows of an import still waiting, in file order. */
  pendingRows(importId: string): ImportRow[] {
    return (
      this.core
        .sql('SELECT * FROM bulk_import_rows WHERE bulk_import_id = ? AND error IS NULL ORDER BY position')
        .all(importId) as Record<string, unknown>[]
    ).map(toRow);
  }

  /**
   * The next waiting row of an import in progress, other than `busy` (rows being worked on). Rows go by their
   * place in the file across imports, so an import started later is not held behind a long one.
   */
  nextPending(busy: ReadonlySet<string>): (ImportRow & { import: BulkImport }) | null {
    const rows = this.core
      .sql(
        `SELECT r.*, i.id AS i_id, i.account_id, i.type, i.overwrite, i.state, i.total_items, i.processed_items, i.imported_items, i.created_at, i.finished_at
           FROM bulk_import_rows r JOIN bulk_imports i ON i.id = r.bulk_import_id
          WHERE r.error IS NULL AND i.state = 'in_progress' ORDER BY r.position, r.id LIMIT ?`,
      )
      .all(busy.size + 1) as Record<string, unknown>[];
    const r = rows.find((row) => !busy.has(str(row.id)));
    return r ? { ...toRow(r), import: toImport({ ...r, id: r.i_id }) } : null;
  }

  /**
   * Counts a lookup of the row as started, before it starts (a server that dies during it leaves the count);
   * returns how many have been started, this one included.
   */
  startLookup(rowId: string): number {
    const r = this.core
      .sql('UPDATE bulk_import_rows SET lookups_started = lookups_started + 1 WHERE id = ? RETURNING lookups_started')
      .get(rowId) as { lookups_started: number } | undefined;
    return r?.lookups_started ?? 0;
  }

  /** A started lookup stopped with the server, in order: it does not count. */
  forgetLookup(rowId: string): void {
    this.core
      .sql('UPDATE bulk_import_rows SET lookups_started = lookups_started - 1 WHERE id = ? AND lookups_started > 0')
      .run(rowId);
  }

  /**
   * A row is done: deleted when imported, kept with `error` when not. The import counts it, and finishes with
   * its last row. A row settled already (a second worker, a restart) is not counted again.
   */
  settle(row: ImportRow, error: string | null): void {
    this.core.transaction(() => {
      const changed =
        error === null
          ? this.core.sql('DELETE FROM bulk_import_rows WHERE id = ? AND error IS NULL').run(row.id).changes
          : this.core
              .sql('UPDATE bulk_import_rows SET error = ? WHERE id = ? AND error IS NULL')
              .run(error.slice(0, MAX_ERROR_LENGTH) || 'failed', row.id).changes;
      if (changed === 0) return;
      this.core
        .sql(
          'UPDATE bulk_imports SET processed_items = processed_items + 1, imported_items = imported_items + ? WHERE id = ?',
        )
        .run(error === null ? 1 : 0, row.importId);
      this.finishIfDone(row.importId);
    });
  }

  /** Ends an import whose rows are all processed (or that has none). */
  finishIfDone(importId: string): void {
    this.core
      .sql(
        "UPDATE bulk_imports SET state = 'finished', finished_at = ? WHERE id = ? AND state <> 'finished' AND processed_items >= total_items",
      )
      .run(this.core.now(), importId);
  }

  /** Ends an import whose remaining rows cannot be worked off (its account is gone), each failed with `error`. */
  abandon(importId: string, error: string): void {
    this.core.transaction(() => {
      const failed = this.core
        .sql('UPDATE bulk_import_rows SET error = ? WHERE bulk_import_id = ? AND error IS NULL')
        .run(error.slice(0, MAX_ERROR_LENGTH), importId).changes;
      this.core.sql('UPDATE bulk_imports SET processed_items = processed_items + ? WHERE id = ?').run(failed, importId);
      this.finishIfDone(importId);
    });
  }

  /** Empties a list (an import overwriting lists refills it). */
  clearList(listId: string): void {
    this.core.sql('DELETE FROM list_accounts WHERE list_id = ?').run(listId);
  }

  /** Failed rows of an import in file order, at most `limit`. */
  failures(importId: string, limit: number): FailedImportRow[] {
    return (
      this.core
        .sql('SELECT * FROM bulk_import_rows WHERE bulk_import_id = ? AND error IS NOT NULL ORDER BY position LIMIT ?')
        .all(importId, limit) as Record<string, unknown>[]
    ).map((r) => ({ ...toRow(r), error: String(r.error) }));
  }

  /** Deletes imports that finished before `before` (Mastodon keeps them a week), with their failed rows. */
  purgeFinished(before: number): number {
    return this.core.sql("DELETE FROM bulk_imports WHERE state = 'finished' AND finished_at < ?").run(before).changes;
  }
}

function toImport(r: Record<string, unknown>): BulkImport {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    type: String(r.type),
    overwrite: bool(r.overwrite),
    state: String(r.state) as ImportState,
    totalItems: int(r.total_items),
    processedItems: int(r.processed_items),
    importedItems: int(r.imported_items),
    createdAt: int(r.created_at),
    finishedAt: intOrNull(r.finished_at),
  };
}

function toRow(r: Record<string, unknown>): ImportRow {
  return {
    id: str(r.id),
    importId: str(r.bulk_import_id),
    position: int(r.position),
    data: jsonOr<ImportRowData>(r.data, {}),
  };
}

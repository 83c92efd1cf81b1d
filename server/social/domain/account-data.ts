import { stringify } from 'csv-stringify/sync';
import { ValidationFailure } from '../errors.ts';
import type {
  Account,
  BulkImport,
  ExportedAccount,
  ImportRow,
  ImportRowData,
  SocialStore,
  StatusRow,
} from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import {
  FIRST_HEADER,
  FOLLOWING_HEADER,
  importRows,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
  MUTED_HEADER,
  parseRows,
  type DataKind,
} from './account-data-csv.ts';
import { MAX_LISTS } from './lists.ts';
import type { RelationshipService } from './relationships.ts';

/** How an import finds what a row names: accounts by address (looked up on their server when new), posts by URI. */
export interface ImportLookups {
  account(address: string): Promise<Account | null>;
  status(uri: string): Promise<StatusRow | null>;
}

/** What a row's lookup found: an account, a post, or nothing. */
export type ImportTarget = Account | StatusRow | null;

/**
 * Mastodon-compatible CSV exports and imports, so a user can come from a Mastodon server and go back to one:
 * follows (with their options), lists, blocks, mutes, blocked domains and bookmarks. An import is stored whole
 * when it is made (`schedule`) and worked off in the background as Mastodon's BulkImport is: `begin` does
 * what needs no other server (overwrite's removals, rows matching what is already there, lists, domain
 * blocks), then each remaining row is looked up (`lookup`, the slow part) and applied (`apply`) by the worker
 * (import-worker.ts). Follows of remote accounts start as requests their servers answer.
 */
export class AccountData {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly relationships: RelationshipService;
  /** Called after an import is stored (the worker starts on it). */
  onScheduled: () => void = () => {};

  constructor(store: SocialStore, urls: SocialUrls, relationships: RelationshipService) {
    this.store = store;
    this.urls = urls;
    this.relationships = relationships;
  }

  export(me: Account, kind: DataKind): string {
    const q = this.store.exports;
    const address = (a: ExportedAccount) => `${a.username}@${a.domain ?? this.urls.domain}`;
    switch (kind) {
      case 'following_accounts':
        return stringify([
          FOLLOWING_HEADER,
          ...q
            .following(me.id)
            .map((f) => [address(f), String(f.showReblogs), String(f.notify), (f.languages ?? []).join(', ')]),
        ]);
      case 'lists':
        return stringify(q.listMembers(me.id).map((m) => [m.title, address(m)]));
      case 'blocked_accounts':
        return stringify(q.blocked(me.id).map((a) => [address(a)]));
      case 'muted_accounts':
        return stringify([MUTED_HEADER, ...q.muted(me.id).map((m) => [address(m), String(m.hideNotifications)])]);
      case 'blocked_domains':
        return stringify(q.blockedDomains(me.id).map((d) => [d]));
      case 'bookmarks':
        return stringify(q.bookmarks(me.id).map((b) => [b.uri ?? this.urls.statusUri(b.username, b.statusId)]));
    }
  }

  /** The rows of an import that failed, as a file of its type to import again (Mastodon's failures file). */
  failuresCsv(imp: BulkImport): string {
    const rows = this.store.imports.failures(imp.id, MAX_IMPORT_ROWS).map((r) => r.data);
    switch (imp.type as DataKind) {
      case 'following_accounts':
        return stringify([
          FOLLOWING_HEADER,
          ...rows.map((d) => [
            d.acct,
            String(d.show_reblogs !== false),
            String(d.notify === true),
            (d.languages ?? []).join(', '),
          ]),
        ]);
      case 'muted_accounts':
        return stringify([MUTED_HEADER, ...rows.map((d) => [d.acct, String(d.hide_notifications !== false)])]);
      case 'lists':
        return stringify(rows.map((d) => [d.list_name, d.acct]));
      case 'blocked_domains':
        return stringify(rows.map((d) => [d.domain]));
      case 'bookmarks':
        return stringify(rows.map((d) => [d.uri]));
      default:
        return stringify(rows.map((d) => [d.acct]));
    }
  }

  /**
   * Validates a file and stores it as a scheduled import (one transaction); the worker does the rest. One
   * import of a type runs at a time per account.
   */
  schedule(me: Account, kind: DataKind, csv: string, overwrite: boolean): BulkImport {
    const running = this.store.imports.unfinished(me.id, kind);
    if (running)
      throw ValidationFailure.single(
        'type',
        'ERR_TAKEN',
        `has an import still running (${running.id}); wait for it to finish`,
      );
    if (Buffer.byteLength(csv) > MAX_IMPORT_BYTES)
      throw ValidationFailure.single('data', 'ERR_TOO_LONG', `is too large (maximum is ${MAX_IMPORT_BYTES} bytes)`);
    const parsed = parseRows(csv);
    const first = parsed[0]?.[0];
    if (first !== undefined && first !== FIRST_HEADER[kind] && Object.values(FIRST_HEADER).includes(first)) {
      throw ValidationFailure.single('data', 'ERR_INVALID', `is not a ${kind} file (its header starts with ${first})`);
    }
    const rows = importRows(kind, parsed);
    if (rows.length === 0) throw ValidationFailure.single('data', 'ERR_BLANK', 'holds no rows');
    const created = this.store.imports.create(me.id, kind, overwrite, rows);
    this.onScheduled();
    return created;
  }

  /**
   * Starts a scheduled import, in one transaction (Mastodon's BulkImportService): with `overwrite`, what the
   * file does not hold is removed and rows naming what is already there are done at once; lists are made;
   * domain blocks, which need no lookups, are all done here. The rows left wait for the worker.
   */
  begin(imp: BulkImport): void {
    this.store.transaction(() => {
      this.store.imports.markInProgress(imp.id);
      const me = this.store.accounts.byId(imp.accountId);
      if (!me || me.deletedAt !== null || me.suspendedAt !== null) {
        this.store.imports.abandon(imp.id, 'the account is no longer active');
        return;
      }
      const rows = this.store.imports.pendingRows(imp.id);
      const q = this.store.exports;
      switch (imp.type as DataKind) {
        case 'following_accounts':
          if (imp.overwrite)
            this.overwriteAccounts(
              me,
              rows,
              q.following(me.id),
              (target, data) => this.followWith(me, target, data),
              (target) => this.relationships.unfollow(me, target),
            );
          break;
        case 'blocked_accounts':
          if (imp.overwrite)
            this.overwriteAccounts(
              me,
              rows,
              q.blocked(me.id),
              () => {},
              (target) => this.relationships.unblock(me, target),
            );
          break;
        case 'muted_accounts':
          if (imp.overwrite)
            this.overwriteAccounts(
              me,
              rows,
              q.muted(me.id),
              (target, data) => this.muteWith(me, target, data),
              (target) => this.relationships.unmute(me, target),
            );
          break;
        case 'bookmarks':
          if (imp.overwrite) {
            const byUri = new Map(rows.map((r) => [r.data.uri ?? '', r]));
            for (const b of q.bookmarks(me.id)) {
              const row = byUri.get(b.uri ?? this.urls.statusUri(b.username, b.statusId));
              if (row) this.store.imports.settle(row, null);
              else this.store.interactions.unbookmark(me.id, b.statusId);
            }
          }
          break;
        case 'lists':
          this.prepareLists(me, rows, imp.overwrite);
          break;
        case 'blocked_domains': {
          const wanted = new Set(rows.map((r) => r.data.domain));
          if (imp.overwrite)
            for (const domain of q.blockedDomains(me.id))
              if (!wanted.has(domain)) this.relationships.unblockDomain(me, domain);
          for (const row of rows)
            this.settleWith(row, () => this.relationships.blockDomain(me, row.data.domain ?? '', this.urls.domain));
          break;
        }
      }
      this.store.imports.finishIfDone(imp.id);
    });
  }

  /** Looks up what a row names (on its server when it is not known here). */
  async lookup(kind: DataKind, data: ImportRowData, find: ImportLookups): Promise<ImportTarget> {
    if (kind === 'bookmarks') return data.uri ? find.status(data.uri) : null;
    if (kind === 'blocked_domains' || !data.acct) return null;
    return find.account(data.acct);
  }

  /** Applies a row whose target was looked up; returns why it could not be, or null when it was imported. */
  apply(me: Account, kind: DataKind, data: ImportRowData, target: ImportTarget): string | null {
    if (kind === 'bookmarks') {
      const status = target as StatusRow | null;
      if (!status || status.deletedAt !== null) return 'the post was not found';
      if (!this.store.timelines.readable(me.id, status.id)) return 'the post is not visible to you';
      this.store.interactions.bookmark(me.id, status.id);
      return null;
    }
    const account = target as Account | null;
    if (!account) return 'no account was found at that address';
    if (account.id === me.id) return 'that is your own account';
    switch (kind) {
      case 'following_accounts':
        this.followWith(me, account, data);
        return null;
      case 'blocked_accounts':
        this.relationships.block(me, account);
        return null;
      case 'muted_accounts':
        this.muteWith(me, account, data);
        return null;
      case 'lists': {
        const list = this.store.lists.ofOwner(me.id).find((l) => l.title === data.list_name);
        if (!list) return `the list could not be made (at most ${MAX_LISTS} lists)`;
        // One's lists hold accounts one follows (or has asked to follow): the import follows them first.
        if (
          !this.store.relationships.follow(me.id, account.id) &&
          !this.store.relationships.followRequest(me.id, account.id)
        )
          this.relationships.follow(me, account);
        this.store.lists.addMembers(list.id, [account.id]);
        return null;
      }
      default:
        return 'nothing to import';
    }
  }

  private followWith(me: Account, target: Account, data: ImportRowData): void {
    this.relationships.follow(me, target, {
      reblogs: data.show_reblogs !== false,
      notify: data.notify === true,
      languages: data.languages?.length ? data.languages : null,
    });
  }

  private muteWith(me: Account, target: Account, data: ImportRowData): void {
    this.relationships.mute(me, target, { notifications: data.hide_notifications !== false, durationSeconds: 0 });
  }

  /** Settles a row by what `apply` does: imported, or failed with the error it threw. */
  private settleWith(row: ImportRow, apply: () => void): void {
    let error: string | null = null;
    try {
      apply();
    } catch (err) {
      error = errorReason(err);
    }
    this.store.imports.settle(row, error);
  }

  /**
   * Overwrite for accounts (Mastodon's): each account the list already holds is kept, with the row's options,
   * when the file names it (that row is done) and dropped when it does not.
   */
  private overwriteAccounts(
    _me: Account,
    rows: ImportRow[],
    existing: ExportedAccount[],
    keep: (target: Account, data: ImportRowData) => void,
    drop: (target: Account) => void,
  ): void {
    const byAcct = new Map(rows.map((r) => [this.acctKey(r.data.acct ?? ''), r]));
    for (const e of existing) {
      const target = this.store.accounts.byHandle(e.username, e.domain);
      if (!target) continue;
      const row = byAcct.get(this.acctKey(e.domain ? `${e.username}@${e.domain}` : e.username));
      if (row) this.settleWith(row, () => keep(target, row.data));
      else drop(target);
    }
  }

  /** Lists named by the file are made (up to the limit); with `overwrite`, the others are deleted and these emptied first. */
  private prepareLists(me: Account, rows: ImportRow[], overwrite: boolean): void {
    const titles = new Set(rows.map((r) => r.data.list_name ?? '').filter(Boolean));
    let owned = this.store.lists.ofOwner(me.id);
    if (overwrite) {
      for (const list of owned) {
        if (titles.has(list.title)) this.store.imports.clearList(list.id);
        else this.store.lists.delete(list.id);
      }
      owned = this.store.lists.ofOwner(me.id);
    }
    const have = new Set(owned.map((l) => l.title));
    for (const title of titles) {
      if (have.has(title) || have.size >= MAX_LISTS) continue;
      this.store.lists.create(me.id, { title, repliesPolicy: 'list', exclusive: false });
      have.add(title);
    }
  }

  /** An address as the file and the database both say it: lower case, without `@` or this server's domain. */
  private acctKey(address: string): string {
    const acct = address.trim().replace(/^@/, '').toLowerCase();
    for (const local of [this.urls.domain, this.urls.hostname])
      if (acct.endsWith(`@${local.toLowerCase()}`)) return acct.slice(0, -local.length - 1);
    return acct;
  }
}

/** Why applying a row failed, as the import reports it. */
export function errorReason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

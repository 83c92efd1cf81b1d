import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { ValidationFailure } from '../errors.ts';
import type { Account, ExportedAccount, SocialStore, StatusRow } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import type { RelationshipService } from './relationships.ts';

/** The CSV files Mastodon exports and imports (Settings → Import and export), by their file names. */
export const DATA_KINDS = ['following_accounts', 'lists', 'blocked_accounts', 'muted_accounts', 'blocked_domains', 'bookmarks'] as const;
export type DataKind = (typeof DATA_KINDS)[number];

/** Rows one import may hold (Mastodon's limit for follows is 7,500; the others are lower in practice). */
export const MAX_IMPORT_ROWS = 7_500;
const MAX_LISTS = 50;

export interface ImportResult {
  imported: number;
  failed: string[];
}

/** How an import finds what a row names: accounts by address (looked up on their server when new), posts by URI. */
export interface ImportLookups {
  account(address: string): Promise<Account | null>;
  status(uri: string): Promise<StatusRow | null>;
}

/**
 * Mastodon-compatible CSV exports and imports, so a user can come from a Mastodon server and go back to one:
 * follows (with their options), lists, blocks, mutes, blocked domains and bookmarks. Importing merges (or,
 * with `overwrite`, first removes what the file does not hold); follows of remote accounts start as requests
 * their servers answer.
 */
export class AccountData {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly relationships: RelationshipService;

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
          ['Account address', 'Show boosts', 'Notify on new posts', 'Languages'],
          ...q.following(me.id).map((f) => [address(f), String(f.showReblogs), String(f.notify), (f.languages ?? []).join(', ')]),
        ]);
      case 'lists':
        return stringify(q.listMembers(me.id).map((m) => [m.title, address(m)]));
      case 'blocked_accounts':
        return stringify(q.blocked(me.id).map((a) => [address(a)]));
      case 'muted_accounts':
        return stringify([['Account address', 'Hide notifications'], ...q.muted(me.id).map((m) => [address(m), String(m.hideNotifications)])]);
      case 'blocked_domains':
        return stringify(q.blockedDomains(me.id).map((d) => [d]));
      case 'bookmarks':
        return stringify(q.bookmarks(me.id).map((b) => [b.uri ?? this.urls.statusUri(b.username, b.statusId)]));
    }
  }

  async import(me: Account, kind: DataKind, csv: string, overwrite: boolean, find: ImportLookups): Promise<ImportResult> {
    const rows = parseRows(csv);
    const result: ImportResult = { imported: 0, failed: [] };
    const each = async (label: string, apply: () => Promise<boolean> | boolean) => {
      try {
        if (await apply()) result.imported++;
        else result.failed.push(label);
      } catch {
        result.failed.push(label);
      }
    };
    switch (kind) {
      case 'following_accounts': {
        const wanted = new Set<string>();
        for (const [addr, boosts, notify, languages] of withoutHeader(rows, 'Account address')) {
          await each(addr, async () => {
            const target = await find.account(addr);
            if (!target) return false;
            wanted.add(target.id);
            const langs = (languages ?? '').split(',').map((l) => l.trim()).filter(Boolean);
            this.relationships.follow(me, target, { reblogs: boosts !== 'false', notify: notify === 'true', languages: langs.length ? langs : null });
            return true;
          });
        }
        if (overwrite) for (const f of this.store.exports.following(me.id)) await this.unfollowUnless(me, f, wanted);
        return result;
      }
      case 'blocked_accounts':
        for (const [addr] of rows) await each(addr, async () => this.withAccount(find, addr, (target) => this.relationships.block(me, target)));
        return result;
      case 'muted_accounts':
        for (const [addr, hide] of withoutHeader(rows, 'Account address')) {
          await each(addr, async () => this.withAccount(find, addr, (target) => this.relationships.mute(me, target, { notifications: hide !== 'false', durationSeconds: 0 })));
        }
        return result;
      case 'blocked_domains':
        for (const [domain] of rows) await each(domain, () => {
          this.relationships.blockDomain(me, domain.trim().toLowerCase(), this.urls.domain);
          return true;
        });
        return result;
      case 'bookmarks':
        for (const [uri] of rows) await each(uri, async () => {
          const status = await find.status(uri.trim());
          if (!status || status.deletedAt !== null || !this.store.timelines.readable(me.id, status.id)) return false;
          this.store.interactions.bookmark(me.id, status.id);
          return true;
        });
        return result;
      case 'lists': {
        const owned = new Map(this.store.lists.ofOwner(me.id).map((l) => [l.title, l]));
        for (const [title, addr] of rows) {
          await each(`${title}: ${addr}`, async () => {
            const target = await find.account(addr);
            if (!target || !title.trim()) return false;
            let list = owned.get(title.trim());
            if (!list) {
              if (owned.size >= MAX_LISTS) return false;
              list = this.store.lists.create(me.id, { title: title.trim(), repliesPolicy: 'list', exclusive: false });
              owned.set(list.title, list);
            }
            // One's lists hold accounts one follows (or has asked to follow): the import follows them first.
            if (!this.store.relationships.follow(me.id, target.id) && !this.store.relationships.followRequest(me.id, target.id)) this.relationships.follow(me, target);
            this.store.lists.addMembers(list.id, [target.id]);
            return true;
          });
        }
        return result;
      }
    }
  }

  private async withAccount(find: ImportLookups, address: string, apply: (target: Account) => void): Promise<boolean> {
    const target = await find.account(address);
    if (!target) return false;
    apply(target);
    return true;
  }

  private async unfollowUnless(me: Account, followed: ExportedAccount, keep: Set<string>): Promise<void> {
    const target = this.store.accounts.byHandle(followed.username, followed.domain);
    if (target && !keep.has(target.id)) this.relationships.unfollow(me, target);
  }
}

function parseRows(csv: string): string[][] {
  let rows: string[][];
  try {
    rows = parse(csv, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true }) as string[][];
  } catch (err) {
    throw ValidationFailure.single('data', 'ERR_INVALID', `is not a CSV file: ${(err as Error).message}`);
  }
  if (rows.length > MAX_IMPORT_ROWS) throw ValidationFailure.single('data', 'ERR_TOO_LONG', `holds more than ${MAX_IMPORT_ROWS} rows`);
  return rows.filter((r) => r.length > 0 && r[0] !== '');
}

/** Rows after the header line Mastodon writes (its first cell is `header`), when there is one. */
function withoutHeader(rows: string[][], header: string): string[][] {
  return rows[0]?.[0] === header ? rows.slice(1) : rows;
}

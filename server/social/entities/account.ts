import { LRUCache } from 'lru-cache';
import {
  shortcodesIn,
  type Account,
  type AccountCounts,
  type ListedAccount,
  type SocialStore,
  type User,
} from '../store/index.ts';
import { formatInline, formatPlainText } from '../text/index.ts';
import type { SocialUrls } from '../urls.ts';
import { isoDate, isoTimeOrNull, midnight } from './dates.ts';
import { serializeAccountRoles, serializeRole } from './role.ts';
import { serializeEmoji } from './emoji.ts';
import { publicImageUrl, type RemoteMediaRules, STRICT_REMOTE_MEDIA } from './remote-media.ts';

export type AccountJson = Record<string, unknown> & { id: string };

/**
 * An account's serialization without counters, as an object and as JSON text without its braces: the fields
 * before the counters (`head`) and after them (`tail`, with its leading comma), so the text keeps the
 * object's key order.
 */
interface CachedAccount {
  json: AccountJson;
  head: string;
  tail: string;
}

function countFields(c: AccountCounts) {
  return {
    followers_count: c.followers,
    following_count: c.following,
    statuses_count: c.statuses,
    last_status_at: c.lastStatusAt === null ? null : isoDate(c.lastStatusAt),
  };
}

/** Serializes accounts (Account, CredentialAccount, MutedAccount), counting followers and statuses in batches. */
export class AccountPresenter {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly cache = new LRUCache<string, CachedAccount>({ max: 5_000 });
  private readonly byRow = new WeakMap<Account, { base: string; cached: CachedAccount }>();
  /** Which links to other servers' media clients may be given (statuses' attachments follow the same). */
  readonly remoteMedia: RemoteMediaRules;

  constructor(store: SocialStore, urls: SocialUrls, remoteMedia: RemoteMediaRules = STRICT_REMOTE_MEDIA) {
    this.store = store;
    this.urls = urls;
    this.remoteMedia = remoteMedia;
  }

  acct(account: Account): string {
    return account.domain === null ? account.username : `${account.username}@${account.domain}`;
  }

  uri(account: Account): string {
    return account.uri ?? this.urls.accountUri(account.username);
  }

  profileUrl(account: Account): string {
    return account.url ?? (account.domain === null ? this.urls.profileUrl(account.username) : this.uri(account));
  }

  avatarUrl(account: Account): string {
    if (account.suspendedAt !== null) return this.urls.missingAvatar;
    if (account.avatarFile) return this.urls.media(account.avatarFile);
    // A remote avatar clients must not load shows as none (Mastodon's missing.png).
    return publicImageUrl(account.avatarRemoteUrl, this.remoteMedia) ?? this.urls.missingAvatar;
  }

  headerUrl(account: Account): string {
    if (account.suspendedAt !== null) return this.urls.missingHeader;
    if (account.headerFile) return this.urls.media(account.headerFile);
    return publicImageUrl(account.headerRemoteUrl, this.remoteMedia) ?? this.urls.missingHeader;
  }

  /** HTML of a note: local notes are plain text we format, remote ones are HTML already sanitized on receipt. */
  noteHtml(account: Account): string {
    if (account.domain !== null) return account.note;
    return formatPlainText(account.note, this.formatOptions());
  }

  private formatOptions() {
    return {
      mentionUrl: (username: string, domain: string | null) => {
        const local = domain === null || domain === this.urls.domain.toLowerCase();
        const found = this.store.accounts.byHandle(username, local ? null : domain);
        return found && found.deletedAt === null ? this.profileUrl(found) : null;
      },
      tagUrl: (name: string) => this.urls.tagUrl(name),
    };
  }

  /** `counted`: counters already read with the rows (AccountRepository.byIdsWithCounts). */
  present(accounts: readonly Account[], counted?: ReadonlyMap<string, AccountCounts>): AccountJson[] {
    const counts = counted ?? this.store.accounts.counts(accounts);
    const moved = new Map<string, Account>();
    for (const a of accounts) {
      if (a.movedToAccountId && !moved.has(a.movedToAccountId)) {
        const target = this.store.accounts.byId(a.movedToAccountId);
        if (target) moved.set(target.id, target);
      }
    }
    const movedJson = new Map<string, AccountJson>();
    if (moved.size) {
      const list = [...moved.values()];
      const movedCounts = this.store.accounts.counts(list);
      for (const m of list) movedJson.set(m.id, this.serialize(m, movedCounts.get(m.id)!, null));
    }
    return accounts.map((a) => {
      const c = counts.get(a.id)!;
      if (a.movedToAccountId) return this.serialize(a, c, movedJson.get(a.movedToAccountId) ?? null);
      const base = this.base(a).json;
      if (a.suspendedAt !== null) return { ...base };
      return { ...base, ...countFields(c) };
    });
  }

  /**
   * The same as `present`, as JSON text (list responses): the row-dependent part is stringified once per
   * account version and reused, only the counters are written per call.
   */
  presentText(accounts: readonly Account[], counted?: ReadonlyMap<string, AccountCounts>): string[] {
    const plain = accounts.filter((a) => !a.movedToAccountId && a.suspendedAt === null);
    const counts = counted ?? this.store.accounts.counts(plain);
    const special = accounts.filter((a) => a.movedToAccountId || a.suspendedAt !== null);
    const specialJson = new Map(this.present(special, counted).map((json) => [json.id, JSON.stringify(json)]));
    return accounts.map((a) => {
      const text = specialJson.get(a.id);
      if (text !== undefined) return text;
      const c = countFields(counts.get(a.id)!);
      const base = this.base(a);
      return `{${base.head},"followers_count":${c.followers_count},"following_count":${c.following_count},"statuses_count":${c.statuses_count},"last_status_at":${c.last_status_at === null ? 'null' : `"${c.last_status_at}"`}${base.tail}}`;
    });
  }

  /** Everything but the counters depends only on the row (and its user's role): kept while the row is unchanged. */
  private base(a: Account): CachedAccount {
    // A frozen row (AccountRepository's page rows) is one version of the account: found by identity, no key to build.
    const byRow = this.byRow.get(a);
    if (byRow?.base === this.urls.base) return byRow.cached;
    const key = `${this.urls.base}|${a.id}|${a.updatedAt}|${a.user?.role ?? ''}|${a.user?.confirmed ?? ''}|${a.suspendedAt ?? ''}|${a.silencedAt ?? ''}|${a.deletedAt ?? ''}`;
    let cached = this.cache.get(key);
    if (!cached) {
      const json = this.serialize(a, { statuses: 0, followers: 0, following: 0, lastStatusAt: null }, null);
      const keys = Object.keys(json);
      const first = keys.indexOf('followers_count');
      const pick = (names: string[]) => JSON.stringify(Object.fromEntries(names.map((k) => [k, json[k]]))).slice(1, -1);
      const tail = pick(keys.slice(first + 4));
      cached = { json, head: pick(keys.slice(0, first)), tail: tail === '' ? '' : `,${tail}` };
      this.cache.set(key, cached);
    }
    if (Object.isFrozen(a)) this.byRow.set(a, { base: this.urls.base, cached });
    return cached;
  }

  one(account: Account): AccountJson {
    return this.present([account])[0];
  }

  listed(rows: readonly ListedAccount[]): AccountJson[] {
    return this.present(rows.map((r) => r.account));
  }

  /** MutedAccount: an Account plus when the mute ends. */
  muted(rows: readonly ListedAccount[]): AccountJson[] {
    const json = this.present(rows.map((r) => r.account));
    return json.map((j, i) => ({ ...j, mute_expires_at: isoTimeOrNull(rows[i].muteExpiresAt ?? null) }));
  }

  /** CredentialAccount: the signed-in user's own account with its source and role. */
  credential(account: Account, user: User): AccountJson {
    const base = this.one(account);
    const s = user.settings;
    return {
      ...base,
      source: {
        privacy: s.defaultPrivacy ?? 'public',
        sensitive: s.defaultSensitive ?? false,
        language: s.defaultLanguage ?? null,
        note: account.note,
        fields: account.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at })),
        follow_requests_count: this.store.relationships.incomingFollowRequestCount(account.id),
        hide_collections: account.hideCollections,
        discoverable: account.discoverable,
        indexable: account.indexable,
        attribution_domains: account.attributionDomains,
        quote_policy: s.defaultQuotePolicy ?? 'public',
      },
      role: serializeRole(user.role),
    };
  }

  /** Custom emojis of the profile (name, bio, fields) from the account's own server. */
  private emojisOf(a: Account): Record<string, unknown>[] {
    const codes = shortcodesIn(a.displayName, a.note, ...a.fields.flatMap((f) => [f.name, f.value]));
    return codes.length
      ? this.store.emojis.forShortcodes(a.domain, codes).map((e) => serializeEmoji(this.urls, e))
      : [];
  }

  private serialize(a: Account, counts: AccountCounts, moved: AccountJson | null): AccountJson {
    const unavailable = a.suspendedAt !== null;
    const json: AccountJson = {
      id: a.id,
      username: a.username,
      acct: this.acct(a),
      display_name: unavailable ? '' : a.displayName,
      locked: unavailable ? false : a.locked,
      bot: unavailable ? false : a.actorType === 'Service' || a.actorType === 'Application',
      discoverable: unavailable ? false : a.discoverable,
      indexable: unavailable ? false : a.indexable,
      group: a.actorType === 'Group',
      created_at: midnight(a.createdAt),
      note: unavailable ? '' : this.noteHtml(a),
      url: this.profileUrl(a),
      uri: this.uri(a),
      avatar: this.avatarUrl(a),
      avatar_static: this.avatarUrl(a),
      avatar_description: unavailable ? '' : a.avatarDescription,
      header: this.headerUrl(a),
      header_static: this.headerUrl(a),
      header_description: unavailable ? '' : a.headerDescription,
      followers_count: unavailable ? 0 : counts.followers,
      following_count: unavailable ? 0 : counts.following,
      statuses_count: unavailable ? 0 : counts.statuses,
      last_status_at: unavailable || counts.lastStatusAt === null ? null : isoDate(counts.lastStatusAt),
      hide_collections: a.hideCollections,
      emojis: unavailable ? [] : this.emojisOf(a),
      roles: unavailable ? [] : serializeAccountRoles(a.user?.role ?? null),
      fields: unavailable
        ? []
        : a.fields.map((f) => ({
            name: f.name,
            value: a.domain === null ? formatInline(f.value, this.formatOptions()) : f.value,
            verified_at: f.verified_at,
          })),
    };
    // Local accounts that did not opt in to search indexing ask search engines not to index them either.
    if (a.domain === null) json.noindex = !a.indexable;
    if (a.memorial) json.memorial = true;
    if (unavailable) json.suspended = true;
    if (a.silencedAt !== null) json.limited = true;
    if (moved) json.moved = moved;
    return json;
  }
}

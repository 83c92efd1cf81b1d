import fs from 'node:fs';
import {
  AnnouncementService,
  type AccountService,
  ApplicationService,
  CustomEmojiService,
  InstanceService,
  TrendService,
} from './domain/index.ts';
import { loadSharp, type MediaStorage } from './media/index.ts';
import { ALL_SCOPES, parseScopes } from './scopes.ts';
import {
  isOwnerSettingKey,
  OWNER_SETTINGS,
  USER_ROLES,
  type Account,
  type AnnouncementRow,
  type OutboxEmail,
  type ServerRule,
  type CustomEmojiRow,
  type LinkUsage,
  type SocialStore,
  type TagUsage,
  type User,
  type UserRole,
} from './store/index.ts';

/** Mastodon's size limit for a custom emoji image. */
export const CUSTOM_EMOJI_MAX_BYTES = 256 * 1024;

export const USER_ACTIONS = ['confirm', 'approve', 'suspend', 'unsuspend', 'delete'] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

/** A mistake in an admin request (unknown user, bad scope…), reported to the owner as is. */
export class AdminError extends Error {}

/**
 * What the owner does outside the API: from the CLI (`homeport accounts …`, `tokens create`, `settings set`,
 * `rules …`) while the server runs on the same data directory, and from the Homeport UI.
 */
export class SocialAdmin {
  private readonly store: SocialStore;
  private readonly accounts: AccountService;
  private readonly applications: ApplicationService;
  private readonly instance: InstanceService;
  private readonly trends: TrendService;
  private readonly emojis: CustomEmojiService;
  private readonly announcements: AnnouncementService;

  constructor(store: SocialStore, accounts: AccountService, media: MediaStorage) {
    this.store = store;
    this.accounts = accounts;
    this.applications = new ApplicationService(store);
    this.instance = new InstanceService(store);
    this.trends = new TrendService(store);
    this.emojis = new CustomEmojiService(store, media);
    this.announcements = new AnnouncementService(store);
  }

  private localUser(username: string): { user: User; account: Account } {
    const found = this.accounts.findUser(username);
    if (!found || found.account.deletedAt !== null) throw new AdminError(`no local account "${username}"`);
    return found;
  }

  async createAccount(input: {
    username: string;
    email: string;
    password?: string;
    role?: string;
    confirmed?: boolean;
    approved?: boolean;
  }): Promise<{ account: Account; user: User; password: string | null }> {
    const role = (input.role ?? 'user') as UserRole;
    if (!USER_ROLES.includes(role)) throw new AdminError(`--role must be one of ${USER_ROLES.join(', ')}`);
    const created = await this.accounts.create({
      username: input.username.replace(/^@/, ''),
      email: input.email,
      password: input.password,
      role,
      confirmed: input.confirmed ?? false,
      approved: input.approved ?? true,
    });
    return { account: created.account, user: created.user, password: created.generatedPassword };
  }

  applyUserAction(username: string, action: UserAction): Account {
    const { user, account } = this.localUser(username);
    switch (action) {
      case 'confirm':
        this.accounts.confirm(user.id);
        break;
      case 'approve':
        this.accounts.approve(user.id);
        break;
      case 'suspend':
        this.accounts.setSuspendedAndTell(account.id, true);
        break;
      case 'unsuspend':
        this.accounts.setSuspendedAndTell(account.id, false);
        break;
      case 'delete':
        this.accounts.deleteLocal(account.id);
        break;
    }
    return this.store.accounts.byId(account.id)!;
  }

  async setPassword(username: string, password: string): Promise<void> {
    const { user } = this.localUser(username);
    await this.accounts.setPassword(user.id, password);
  }

  setRole(username: string, role: string): void {
    if (!USER_ROLES.includes(role as UserRole)) throw new AdminError(`role must be one of ${USER_ROLES.join(', ')}`);
    this.accounts.setRole(this.localUser(username).user.id, role as UserRole);
  }

  /** A bearer token for a local user, issued to Homeport's own application. */
  createToken(username: string, scopeText: string): { token: string; scopes: string[] } {
    const { user } = this.localUser(username);
    const scopes = parseScopes(scopeText);
    if (scopes.length === 0) throw new AdminError('give at least one scope, e.g. --scopes "read write follow push"');
    const unknown = scopes.filter((s) => !ALL_SCOPES.includes(s));
    if (unknown.length) throw new AdminError(`unknown scope ${unknown.join(', ')}`);
    const { secret } = this.applications.issueBuiltinToken(user.id, scopes);
    return { token: secret, scopes };
  }

  setSetting(key: string, value: string): string {
    try {
      return this.instance.setOwnerSetting(key, value);
    } catch (err) {
      throw new AdminError((err as Error).message);
    }
  }

  getSetting(key: string): string {
    if (!isOwnerSettingKey(key))
      throw new AdminError(`unknown setting "${key}"; known: ${Object.keys(OWNER_SETTINGS).join(', ')}`);
    return this.store.settings.owner(key);
  }

  addRule(text: string, hint = ''): ServerRule {
    if (!text.trim()) throw new AdminError('a rule needs text');
    if (text.length > 300 || hint.length > 2000) throw new AdminError('a rule is at most 300 characters (hint 2000)');
    return this.instance.addRule(text.trim(), hint.trim());
  }

  listRules(): ServerRule[] {
    return this.store.rules.list();
  }

  removeRule(id: string): void {
    if (!/^\d+$/.test(id) || !this.instance.removeRule(id)) throw new AdminError(`no rule with id ${id}`);
  }

  /** Hashtags used in public posts lately, with staff's review of each (only allowed ones trend). */
  trendingTagCandidates(limit = 40): TagUsage[] {
    return this.store.trends.tags({ allowedOnly: false, limit, offset: 0 });
  }

  /** Allows a hashtag to appear in trends, or keeps it out. */
  reviewTrendingTag(name: string, allowed: boolean): void {
    const tag = this.store.tags.byName(name.replace(/^#/, ''));
    if (!tag) throw new AdminError(`no hashtag #${name.replace(/^#/, '')} has been used here`);
    this.trends.reviewTag(tag.id, allowed);
  }

  /** Links (articles) shared in public posts lately, with staff's review of each (only allowed ones trend). */
  trendingLinkCandidates(limit = 40): LinkUsage[] {
    return this.store.trends.links({ allowedOnly: false, limit, offset: 0 });
  }

  /** Allows a link (the address its card shows in trends) to appear in trends, or keeps it out. */
  reviewTrendingLink(url: string, allowed: boolean): void {
    let normalized: string | null = null;
    try {
      normalized = new URL(url.trim()).href;
    } catch {
      // not an address: looked up as written
    }
    const card = this.store.previewCards.byUrl(url) ?? (normalized ? this.store.previewCards.byUrl(normalized) : null);
    if (!card) throw new AdminError(`no link preview card has the address ${url}`);
    this.trends.reviewLink(card.id, allowed);
  }

  /**
   * Adds (or replaces) a custom emoji from a PNG, GIF or WebP file of at most 256 KB (Mastodon's limit);
   * an animated one also gets a still PNG for clients that do not animate.
   */
  async addCustomEmoji(
    shortcode: string,
    file: string,
    options: { category?: string | null; visibleInPicker?: boolean } = {},
  ): Promise<CustomEmojiRow> {
    if (!/^[a-zA-Z0-9_]{2,30}$/.test(shortcode))
      throw new AdminError('a shortcode is 2 to 30 letters, digits or underscores');
    const category = options.category?.trim() || null;
    if (category && category.length > 100) throw new AdminError('a category is at most 100 characters');
    let data: Buffer;
    try {
      data = await fs.promises.readFile(file);
    } catch {
      throw new AdminError(`cannot read ${file}`);
    }
    if (data.length > CUSTOM_EMOJI_MAX_BYTES)
      throw new AdminError(`an emoji image is at most ${CUSTOM_EMOJI_MAX_BYTES / 1024} KB`);
    const meta = await (await loadSharp())(data, { animated: true })
      .metadata()
      .catch(() => null);
    if (!meta || !['png', 'gif', 'webp'].includes(meta.format ?? ''))
      throw new AdminError('an emoji image must be PNG, GIF or WebP');
    return this.emojis.put(
      { shortcode, category, visibleInPicker: options.visibleInPicker ?? true },
      { data, format: meta.format!, animated: (meta.pages ?? 1) > 1 },
    );
  }

  listCustomEmojis(): CustomEmojiRow[] {
    return this.store.emojis.local();
  }

  async removeCustomEmoji(shortcode: string): Promise<void> {
    if (!(await this.emojis.remove(shortcode))) throw new AdminError(`no custom emoji :${shortcode}:`);
  }

  /** Publishes an announcement (times in ms since the epoch). */
  publishAnnouncement(input: {
    text: string;
    allDay?: boolean;
    startsAt?: number | null;
    endsAt?: number | null;
  }): string {
    return this.announcements.publish(input);
  }

  listAnnouncements(): AnnouncementRow[] {
    return this.store.announcements.current(null, true);
  }

  removeAnnouncement(id: string): void {
    if (!/^\d+$/.test(id) || !this.store.announcements.byId(id)) throw new AdminError(`no announcement with id ${id}`);
    this.announcements.remove(id);
  }

  /** E-mails written by the server, newest first (the local outbox is what the UI shows without SMTP). */
  listOutbox(options: { limit?: number; to?: string } = {}): OutboxEmail[] {
    return this.store.mailOutbox.list(options);
  }
}

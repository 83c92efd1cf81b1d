import crypto from 'node:crypto';
import net from 'node:net';
import { forbidden, notFound, refused, ValidationFailure } from '../errors.ts';
import type {
  Account,
  DomainBlockInput,
  DomainBlockRow,
  IpBlockRow,
  IpBlockSeverity,
  SimpleBlockRow,
  SocialStore,
  UserRole,
} from '../store/index.ts';
import type { AccountService } from './accounts.ts';

export const ACCOUNT_ACTIONS = ['none', 'sensitive', 'disable', 'silence', 'suspend'] as const;
export type AccountAction = (typeof ACCOUNT_ACTIONS)[number];

const RANK: Record<UserRole, number> = { user: 0, moderator: 1, admin: 2, owner: 3 };

/** What the server's domain blocks and allows say of a remote domain (see ModerationService.domainPolicy). */
export interface DomainPolicy {
  refused: boolean;
  silenced: boolean;
  rejectMedia: boolean;
  rejectReports: boolean;
}

/** Most domains whose policy is kept at once. */
const POLICY_ENTRIES = 1_000;

/** An e-mail address reduced as Mastodon does before hashing: lower case, no dots or +tags in the local part. */
export function canonicalEmailHash(email: string): string {
  const [local, domain] = email.trim().toLowerCase().split('@');
  const canonical = `${(local ?? '').replace(/\+.*$/, '').replaceAll('.', '')}@${domain ?? ''}`;
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

/**
 * What staff do to accounts and to the server's moderation lists (the admin API). Staff never act on a
 * member of the staff ranked as high as they are, and a report an action answers is resolved with it.
 */
export class ModerationService {
  private readonly store: SocialStore;
  private readonly accounts: AccountService;
  /** Policies by domain, under the domain policy stamp they were read at (see domainPolicy). */
  private policies: { stamp: string; byDomain: Map<string, DomainPolicy> } = { stamp: '', byDomain: new Map() };
  constructor(store: SocialStore, accounts: AccountService) {
    this.store = store;
    this.accounts = accounts;
  }

  /** The account staff act on; refused when it belongs to someone ranked as high as the actor. */
  private target(actor: Account, accountId: string): Account {
    const account = this.store.accounts.byId(accountId);
    if (!account) throw notFound();
    if (account.id !== actor.id && account.user && RANK[account.user.role] >= RANK[actor.user?.role ?? 'user'])
      throw forbidden();
    return account;
  }

  private pendingUser(actor: Account, accountId: string) {
    const account = this.target(actor, accountId);
    const user = this.store.users.byAccountId(account.id);
    if (!user || user.approved) throw forbidden();
    return { account, user };
  }

  approve(actor: Account, accountId: string): void {
    this.accounts.approve(this.pendingUser(actor, accountId).user.id);
  }

  /** Rejecting a sign-up deletes it (the name stays reserved, as for every deleted account). */
  reject(actor: Account, accountId: string): void {
    this.accounts.deleteLocal(this.pendingUser(actor, accountId).account.id);
  }

  act(actor: Account, accountId: string, action: AccountAction, reportId: string | null): void {
    const account = this.target(actor, accountId);
    const report = reportId ? this.store.reports.byId(reportId) : null;
    if (reportId && (!report || report.targetAccountId !== account.id))
      throw refused('the report is not about this account');
    const user = this.store.users.byAccountId(account.id);
    if (action === 'disable' && !user) throw refused('only local accounts can be disabled');
    this.store.transaction(() => {
      if (action === 'sensitive') this.store.accounts.setSensitized(account.id, true);
      if (action === 'silence') this.store.accounts.setSilenced(account.id, true);
      if (action === 'disable') {
        // Tokens stay, refused while disabled (Mastodon's "Your login is currently disabled"), so apps work again once enabled.
        this.store.users.setDisabled(user!.id, true);
        this.store.oauth.deleteUserSessions(user!.id);
      }
      if (action === 'suspend') this.accounts.suspend(account.id);
      if (report) this.store.reports.resolve(report.id, actor.id);
      this.store.events.emit('account.updated', { accountId: account.id });
    });
  }

  undo(actor: Account, accountId: string, what: 'enable' | 'unsilence' | 'unsuspend' | 'unsensitive'): void {
    const account = this.target(actor, accountId);
    if (what === 'enable') {
      const user = this.store.users.byAccountId(account.id);
      if (!user) throw refused('only local accounts can be enabled');
      this.store.users.setDisabled(user.id, false);
    }
    if (what === 'unsilence') this.store.accounts.setSilenced(account.id, false);
    if (what === 'unsuspend') {
      if (account.deletedAt !== null) throw forbidden();
      this.accounts.unsuspend(account.id);
    }
    if (what === 'unsensitive') this.store.accounts.setSensitized(account.id, false);
    this.store.events.emit('account.updated', { accountId: account.id });
  }

  /** Deletes the data of a suspended account (Mastodon asks for the suspension first). */
  deleteSuspended(actor: Account, accountId: string): void {
    const account = this.target(actor, accountId);
    if (account.suspendedAt === null || account.deletedAt !== null) throw forbidden();
    if (account.domain === null) this.accounts.deleteLocal(account.id);
    else this.store.accounts.markDeleted(account.id);
  }

  /** Whether sign-ups with this address are refused: its domain (or a parent) or its canonical form is blocked. */
  emailBlocked(email: string): boolean {
    const domain = email.trim().toLowerCase().split('@')[1] ?? '';
    const parts = domain.split('.');
    for (let i = 0; i < parts.length - 1; i++)
      if (this.store.moderation.emailDomainBlocks.byValue(parts.slice(i).join('.'))) return true;
    return this.store.moderation.canonicalEmailBlocks.byValue(canonicalEmailHash(email)) !== null;
  }

  /** The `no_access` ranges in force, under the IP block stamp they were read at, until the next expiry among them. */
  private noAccess: { stamp: string; ranges: net.BlockList | null; until: number } | null = null;

  /**
   * Whether every request from this address is refused (a `no_access` IP block). Asked on every request, so the
   * blocks are read again only when they may have changed: a write to them here, any write by another connection
   * (the admin CLI; SQLite's data_version), or a block's expiry coming.
   */
  accessDenied(ip: string): boolean {
    const stamp = this.store.ipBlockStamp();
    const now = this.store.now();
    let noAccess = this.noAccess;
    if (!noAccess || stamp === null || noAccess.stamp !== stamp || now >= noAccess.until) {
      const blocks = this.store.moderation.activeIpBlocks().filter((b) => b.severity === 'no_access');
      const expiries = blocks.map((b) => b.expiresAt ?? Number.POSITIVE_INFINITY);
      // No ranges at all (nearly always): every request is answered without parsing its address.
      const ranges = blocks.length === 0 ? null : rangeList(blocks.map((b) => b.ip));
      noAccess = { stamp: stamp ?? '', ranges, until: Math.min(...expiries) };
      // Inside a write what was read may yet be rolled back: used, not kept.
      this.noAccess = stamp === null ? null : noAccess;
    }
    return noAccess.ranges !== null && inRanges(noAccess.ranges, ip);
  }

  /** The strictest IP block in force that covers an address, or null. */
  ipBlockFor(ip: string): IpBlockRow | null {
    const order: IpBlockSeverity[] = ['no_access', 'sign_up_block', 'sign_up_requires_approval'];
    const matching = this.store.moderation.activeIpBlocks().filter((b) => ipInRange(ip, b.ip));
    return matching.sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity))[0] ?? null;
  }

  /**
   * What the server's domain blocks and allows say of a remote domain (a block or allow of a parent domain
   * covers its subdomains): refused domains neither send nor receive anything (suspended, or not allowed
   * in limited federation mode); silenced ones' accounts are limited; some blocks also refuse media or reports.
   */
  domainPolicy(domain: string): DomainPolicy {
    // Asked several times per inbound activity: kept until a block, an allow or the federation mode is written
    // (or another connection writes, or a write group is lost), at most POLICY_ENTRIES domains.
    const stamp = this.store.domainPolicyStamp();
    if (stamp === null) return this.readDomainPolicy(domain);
    if (this.policies.stamp !== stamp) this.policies = { stamp, byDomain: new Map() };
    const known = this.policies.byDomain.get(domain);
    if (known) return known;
    const policy = Object.freeze(this.readDomainPolicy(domain));
    if (this.policies.byDomain.size >= POLICY_ENTRIES)
      this.policies.byDomain.delete(this.policies.byDomain.keys().next().value as string);
    this.policies.byDomain.set(domain, policy);
    return policy;
  }

  private readDomainPolicy(domain: string): DomainPolicy {
    const host = normalizeDomain(domain);
    const block = this.store.moderation.domainBlockCovering(host);
    const limited = this.store.settings.owner('federation_mode') === 'limited';
    const parts = host.split('.');
    const allowed =
      !limited || parts.some((_, i) => this.store.moderation.domainAllows.byValue(parts.slice(i).join('.')) !== null);
    return {
      refused: block?.severity === 'suspend' || !allowed,
      silenced: block?.severity === 'silence',
      rejectMedia: block?.rejectMedia === true || block?.severity === 'suspend',
      rejectReports: block?.rejectReports === true || block?.severity === 'suspend',
    };
  }

  /** Puts a domain block's severity on the accounts of the domain already known (new ones get it on arrival). */
  applyDomainBlock(domain: string): void {
    const policy = this.domainPolicy(domain);
    const accountIds = this.store.moderation.accountIdsOnDomain(domain);
    this.store.transaction(() => {
      for (const accountId of accountIds) {
        const account = this.store.accounts.byId(accountId);
        if (!account) continue;
        if ((account.suspendedAt !== null) !== policy.refused)
          this.store.accounts.setSuspended(accountId, policy.refused);
        if ((account.silencedAt !== null) !== policy.silenced)
          this.store.accounts.setSilenced(accountId, policy.silenced);
      }
    });
  }

  /**
   * Blocks a domain. A block of the same domain, or a stricter one covering it, already in place is
   * refused with that block (Mastodon's `existing_domain_block`).
   */
  blockDomain(input: DomainBlockInput): { created: DomainBlockRow } | { conflict: DomainBlockRow } {
    const domain = normalizeDomain(input.domain);
    const existing = this.store.moderation.domainBlockCovering(domain);
    const strictness = { noop: 0, silence: 1, suspend: 2 };
    if (existing && (existing.domain === domain || strictness[existing.severity] >= strictness[input.severity]))
      return { conflict: existing };
    const id = this.store.moderation.insertDomainBlock({ ...input, domain });
    this.applyDomainBlock(domain);
    return { created: this.store.moderation.domainBlock(id)! };
  }

  /** Changes a domain block (its domain stays) and puts the new severity on the domain's accounts. */
  changeDomainBlock(id: string, change: (block: DomainBlockRow) => DomainBlockInput): DomainBlockRow {
    const block = this.store.moderation.domainBlock(id);
    if (!block) throw notFound();
    this.store.moderation.updateDomainBlock(block.id, { ...change(block), domain: block.domain });
    this.applyDomainBlock(block.domain);
    return this.store.moderation.domainBlock(block.id)!;
  }

  /** Lifts a domain block: the domain's accounts get the severity left (of a block covering it, or none). */
  removeDomainBlock(id: string): void {
    const block = this.store.moderation.domainBlock(id);
    if (!block || !this.store.moderation.removeDomainBlock(block.id)) throw notFound();
    this.applyDomainBlock(block.domain);
  }

  /** Blocks an address range; a range blocked already is refused. */
  addIpBlock(input: Omit<IpBlockRow, 'id' | 'createdAt'>): IpBlockRow {
    if (this.store.moderation.activeIpBlocks().some((b) => b.ip === input.ip))
      throw ValidationFailure.single('ip', 'ERR_TAKEN', 'has already been taken');
    return this.store.moderation.ipBlock(this.store.moderation.insertIpBlock(input))!;
  }

  changeIpBlock(id: string, change: (block: IpBlockRow) => Omit<IpBlockRow, 'id' | 'createdAt'>): IpBlockRow {
    const block = this.store.moderation.ipBlock(id);
    if (!block) throw notFound();
    this.store.moderation.updateIpBlock(block.id, change(block));
    return this.store.moderation.ipBlock(block.id)!;
  }

  removeIpBlock(id: string): void {
    if (!this.store.moderation.removeIpBlock(id)) throw notFound();
  }

  /** Allows a domain (when federation is limited to allowed ones); one allowed already answers its record. */
  allowDomain(domain: string): SimpleBlockRow {
    return this.store.moderation.domainAllows.add(domain);
  }

  /** Blocks sign-ups with addresses of a domain; a domain blocked already is refused. */
  blockEmailDomain(domain: string): SimpleBlockRow {
    if (this.store.moderation.emailDomainBlocks.byValue(domain))
      throw ValidationFailure.single('domain', 'ERR_TAKEN', 'has already been taken');
    return this.store.moderation.emailDomainBlocks.add(domain);
  }

  /** Blocks sign-ups with an address, by its canonical hash; one blocked already is refused. */
  blockCanonicalEmail(hash: string): SimpleBlockRow {
    if (this.store.moderation.canonicalEmailBlocks.byValue(hash))
      throw ValidationFailure.single('canonical_email_hash', 'ERR_TAKEN', 'has already been taken');
    return this.store.moderation.canonicalEmailBlocks.add(hash);
  }

  /** Removes an entry of a domain allow or e-mail block list; a 404 when there is none by that id. */
  unlist(list: 'domainAllows' | 'emailDomainBlocks' | 'canonicalEmailBlocks', id: string): void {
    if (!this.store.moderation[list].remove(id)) throw notFound();
  }
}

/** A domain as blocks store it: lower case, no scheme, path, port or trailing dot, IDN as punycode. */
export function normalizeDomain(input: string): string {
  const trimmed = input
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/\.$/, '');
  try {
    return new URL(`http://${trimmed}`).hostname;
  } catch {
    return trimmed;
  }
}

/** Whether an address lies in a CIDR range (IPv4-mapped IPv6 addresses count as IPv4). */
export function ipInRange(ip: string, range: string): boolean {
  return inRanges(rangeList([range]), ip);
}

/** CIDR ranges as one list, checked at once (see inRanges). */
function rangeList(ranges: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split('/');
    list.addSubnet(address, Number(bits), net.isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** Whether an address lies in one of a list's ranges (IPv4-mapped IPv6 addresses count as IPv4). */
function inRanges(list: net.BlockList, ip: string): boolean {
  const plain = ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const type = net.isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  return net.isIP(plain) !== 0 && list.check(plain, type);
}

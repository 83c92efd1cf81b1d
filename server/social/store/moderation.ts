import { cursorWhere, finishPage, int, intOrNull, str, type PageQuery, type StoreCore } from './store.ts';

export const DOMAIN_BLOCK_SEVERITIES = ['silence', 'suspend', 'noop'] as const;
export type DomainBlockSeverity = (typeof DOMAIN_BLOCK_SEVERITIES)[number];
export const IP_BLOCK_SEVERITIES = ['sign_up_requires_approval', 'sign_up_block', 'no_access'] as const;
export type IpBlockSeverity = (typeof IP_BLOCK_SEVERITIES)[number];

export interface DomainBlockRow {
  id: string;
  domain: string;
  severity: DomainBlockSeverity;
  rejectMedia: boolean;
  rejectReports: boolean;
  privateComment: string | null;
  publicComment: string | null;
  obfuscate: boolean;
  createdAt: number;
}

export type DomainBlockInput = Omit<DomainBlockRow, 'id' | 'createdAt'>;

export interface SimpleBlockRow {
  id: string;
  /** The domain (domain allows, e-mail domain blocks) or canonical e-mail hash. */
  value: string;
  createdAt: number;
}

export interface IpBlockRow {
  id: string;
  ip: string;
  severity: IpBlockSeverity;
  comment: string;
  expiresAt: number | null;
  createdAt: number;
}

function toDomainBlock(r: Record<string, unknown>): DomainBlockRow {
  return {
    id: str(r.id),
    domain: String(r.domain),
    severity: r.severity as DomainBlockSeverity,
    rejectMedia: int(r.reject_media) === 1,
    rejectReports: int(r.reject_reports) === 1,
    privateComment: (r.private_comment as string | null) ?? null,
    publicComment: (r.public_comment as string | null) ?? null,
    obfuscate: int(r.obfuscate) === 1,
    createdAt: int(r.created_at),
  };
}

function toIpBlock(r: Record<string, unknown>): IpBlockRow {
  return {
    id: str(r.id),
    ip: String(r.ip),
    severity: r.severity as IpBlockSeverity,
    comment: String(r.comment),
    expiresAt: intOrNull(r.expires_at),
    createdAt: int(r.created_at),
  };
}

/** A table of single values (domain allows, e-mail domain blocks, canonical e-mail blocks). */
class SimpleBlocks {
  private readonly core: StoreCore;
  private readonly table: string;
  private readonly column: string;
  constructor(core: StoreCore, table: string, column: string) {
    this.core = core;
    this.table = table;
    this.column = column;
  }

  private row = (r: Record<string, unknown>): SimpleBlockRow => ({
    id: str(r.id),
    value: String(r[this.column]),
    createdAt: int(r.created_at),
  });

  list(page: PageQuery): SimpleBlockRow[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(`SELECT * FROM ${this.table} WHERE ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`)
      .all(c.params) as Record<string, unknown>[];
    return finishPage(rows.map(this.row), page);
  }

  byId(id: string): SimpleBlockRow | null {
    const r = this.core.sql(`SELECT * FROM ${this.table} WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
    return r ? this.row(r) : null;
  }

  byValue(value: string): SimpleBlockRow | null {
    const r = this.core.sql(`SELECT * FROM ${this.table} WHERE ${this.column} = ?`).get(value) as
      | Record<string, unknown>
      | undefined;
    return r ? this.row(r) : null;
  }

  /** Adds the value, or returns the existing record. */
  add(value: string): SimpleBlockRow {
    const existing = this.byValue(value);
    if (existing) return existing;
    const id = this.core.ids.next();
    this.core
      .sql(`INSERT INTO ${this.table} (id, ${this.column}, created_at) VALUES (?, ?, ?)`)
      .run(id, value, this.core.now());
    return this.byId(id)!;
  }

  remove(id: string): boolean {
    return this.core.sql(`DELETE FROM ${this.table} WHERE id = ?`).run(id).changes > 0;
  }
}

/** The server's moderation lists: domain blocks and allows, e-mail domain and canonical e-mail blocks, IP blocks. */
export class ModerationRepository {
  private readonly core: StoreCore;
  readonly domainAllows: SimpleBlocks;
  readonly emailDomainBlocks: SimpleBlocks;
  readonly canonicalEmailBlocks: SimpleBlocks;

  constructor(core: StoreCore) {
    this.core = core;
    this.domainAllows = new SimpleBlocks(core, 'domain_allows', 'domain');
    this.emailDomainBlocks = new SimpleBlocks(core, 'email_domain_blocks', 'domain');
    this.canonicalEmailBlocks = new SimpleBlocks(core, 'canonical_email_blocks', 'canonical_email_hash');
  }

  domainBlocks(page: PageQuery): DomainBlockRow[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(`SELECT * FROM domain_blocks WHERE ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`)
      .all(c.params) as Record<string, unknown>[];
    return finishPage(rows.map(toDomainBlock), page);
  }

  domainBlock(id: string): DomainBlockRow | null {
    const r = this.core.sql('SELECT * FROM domain_blocks WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toDomainBlock(r) : null;
  }

  /** The block of a domain or of a parent domain (a block of example.org covers a.example.org), most specific first. */
  domainBlockCovering(domain: string): DomainBlockRow | null {
    const parts = domain.toLowerCase().split('.');
    const candidates = parts.map((_, i) => parts.slice(i).join('.')).filter((d) => d.includes('.') || d === domain);
    const r = this.core
      .sql(
        'SELECT * FROM domain_blocks WHERE domain IN (SELECT value FROM json_each(?)) ORDER BY length(domain) DESC LIMIT 1',
      )
      .get(JSON.stringify(candidates)) as Record<string, unknown> | undefined;
    return r ? toDomainBlock(r) : null;
  }

  insertDomainBlock(input: DomainBlockInput): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO domain_blocks (id, domain, severity, reject_media, reject_reports, private_comment, public_comment, obfuscate, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.domain,
        input.severity,
        input.rejectMedia ? 1 : 0,
        input.rejectReports ? 1 : 0,
        input.privateComment,
        input.publicComment,
        input.obfuscate ? 1 : 0,
        now,
        now,
      );
    return id;
  }

  updateDomainBlock(id: string, input: DomainBlockInput): void {
    this.core
      .sql(
        'UPDATE domain_blocks SET severity = ?, reject_media = ?, reject_reports = ?, private_comment = ?, public_comment = ?, obfuscate = ?, updated_at = ? WHERE id = ?',
      )
      .run(
        input.severity,
        input.rejectMedia ? 1 : 0,
        input.rejectReports ? 1 : 0,
        input.privateComment,
        input.publicComment,
        input.obfuscate ? 1 : 0,
        this.core.now(),
        id,
      );
  }

  /** Sign-ups with an address at the domain (or a subdomain) on each of the last seven days, today first. */
  emailDomainHistory(domain: string): { day: number; accounts: number }[] {
    const DAY = 86_400_000;
    const today = Math.floor(this.core.now() / DAY) * DAY;
    const rows = this.core
      .sql(
        `SELECT (created_at / ${DAY}) * ${DAY} AS day, COUNT(*) AS n FROM users
         WHERE created_at >= @since AND (lower(email) LIKE '%@' || @domain OR lower(email) LIKE '%.' || @domain) GROUP BY day`,
      )
      .all({ since: today - 6 * DAY, domain: domain.toLowerCase() }) as { day: bigint; n: bigint }[];
    const counts = new Map(rows.map((r) => [int(r.day), int(r.n)]));
    return Array.from({ length: 7 }, (_, i) => ({ day: today - i * DAY, accounts: counts.get(today - i * DAY) ?? 0 }));
  }

  removeDomainBlock(id: string): boolean {
    return this.core.sql('DELETE FROM domain_blocks WHERE id = ?').run(id).changes > 0;
  }

  ipBlocks(page: PageQuery): IpBlockRow[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(`SELECT * FROM ip_blocks WHERE ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`)
      .all(c.params) as Record<string, unknown>[];
    return finishPage(rows.map(toIpBlock), page);
  }

  ipBlock(id: string): IpBlockRow | null {
    const r = this.core.sql('SELECT * FROM ip_blocks WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toIpBlock(r) : null;
  }

  /** IP blocks in force (not expired). */
  activeIpBlocks(): IpBlockRow[] {
    return (
      this.core
        .sql('SELECT * FROM ip_blocks WHERE expires_at IS NULL OR expires_at > ?')
        .all(this.core.now()) as Record<string, unknown>[]
    ).map(toIpBlock);
  }

  insertIpBlock(input: Omit<IpBlockRow, 'id' | 'createdAt'>): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO ip_blocks (id, ip, severity, comment, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, input.ip, input.severity, input.comment, input.expiresAt, now, now);
    return id;
  }

  updateIpBlock(id: string, input: Omit<IpBlockRow, 'id' | 'createdAt'>): void {
    this.core
      .sql('UPDATE ip_blocks SET ip = ?, severity = ?, comment = ?, expires_at = ?, updated_at = ? WHERE id = ?')
      .run(input.ip, input.severity, input.comment, input.expiresAt, this.core.now(), id);
  }

  removeIpBlock(id: string): boolean {
    return this.core.sql('DELETE FROM ip_blocks WHERE id = ?').run(id).changes > 0;
  }

  /** The blocks the server shows its users (silenced and suspended domains, by name), with their public comments. */
  publicDomainBlocks(): { domain: string; severity: string; publicComment: string | null }[] {
    return this.core
      .sql(
        `SELECT domain, severity, public_comment AS publicComment FROM domain_blocks WHERE severity IN ('silence', 'suspend') ORDER BY domain`,
      )
      .all() as { domain: string; severity: string; publicComment: string | null }[];
  }

  /** The accounts known of a domain and its subdomains (a domain block covers them all). */
  accountIdsOnDomain(domain: string): string[] {
    const rows = this.core
      .sql('SELECT id FROM accounts WHERE domain = ? OR domain LIKE ?')
      .all(domain, `%.${domain}`) as {
      id: bigint;
    }[];
    return rows.map((r) => str(r.id));
  }
}

import { cursorWhere, finishPage, str, type PageQuery, type StoreCore } from './store.ts';

/** Domains a user blocks for themselves (account_domain_blocks), not the admin's server-wide domain blocks. */
export class UserDomainBlockRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  domainBlocked(accountId: string, domain: string): boolean {
    return (
      this.core
        .sql('SELECT 1 FROM account_domain_blocks WHERE account_id = ? AND domain = ?')
        .get(accountId, domain) !== undefined
    );
  }

  insertDomainBlock(accountId: string, domain: string): void {
    this.core
      .sql(
        'INSERT INTO account_domain_blocks (id, account_id, domain, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(this.core.ids.next(), accountId, domain, this.core.now());
  }

  deleteDomainBlock(accountId: string, domain: string): void {
    this.core.sql('DELETE FROM account_domain_blocks WHERE account_id = ? AND domain = ?').run(accountId, domain);
  }

  domainBlocks(accountId: string, page: PageQuery): { cursor: string; domain: string }[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(
        `SELECT id, domain FROM account_domain_blocks WHERE account_id = @account AND ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ account: accountId, ...c.params }) as { id: bigint; domain: string }[];
    return finishPage(
      rows.map((r) => ({ cursor: str(r.id), domain: r.domain })),
      page,
    );
  }
}

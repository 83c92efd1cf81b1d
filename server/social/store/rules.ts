import { int, str, type StoreCore } from './store.ts';

export interface ServerRule {
  id: string;
  text: string;
  hint: string;
  position: number;
}

/** The server's rules (GET /api/v1/instance/rules), managed by the owner through the CLI. */
export class RuleRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  list(): ServerRule[] {
    const rows = this.core.sql('SELECT * FROM rules WHERE deleted_at IS NULL ORDER BY position, id').all() as Record<
      string,
      unknown
    >[];
    return rows.map((r) => ({
      id: str(r.id),
      text: r.text as string,
      hint: r.hint as string,
      position: int(r.position),
    }));
  }

  add(text: string, hint: string): ServerRule {
    const id = this.core.ids.next();
    const r = this.core
      .sql('SELECT coalesce(MAX(position), -1) + 1 AS p FROM rules WHERE deleted_at IS NULL')
      .get() as { p: bigint };
    this.core
      .sql('INSERT INTO rules (id, text, hint, position, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, text, hint, r.p, this.core.now());
    return { id, text, hint, position: int(r.p) };
  }

  /** Rules are soft-deleted: reports keep pointing at the rule they cited. */
  remove(id: string): boolean {
    return (
      this.core.sql('UPDATE rules SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(this.core.now(), id)
        .changes > 0
    );
  }
}

import { int, type StoreCore } from './store.ts';

export interface RelayedEventRow {
  id: number;
  type: string;
  payload: string;
}

/** Domain events the admin CLI raised, waiting for the running server to deliver them (see domain/event-relay.ts). */
export class RelayedEventRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  append(type: string, event: unknown): void {
    const payload = JSON.stringify(event, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
    this.core
      .sql('INSERT INTO relayed_events (type, payload, created_at) VALUES (?, ?, ?)')
      .run(type, payload, this.core.now());
  }

  after(id: number, limit: number): RelayedEventRow[] {
    const rows = this.core
      .sql('SELECT id, type, payload FROM relayed_events WHERE id > ? ORDER BY id LIMIT ?')
      .all(id, limit) as { id: bigint; type: string; payload: string }[];
    return rows.map((r) => ({ id: int(r.id), type: r.type, payload: r.payload }));
  }

  /** The newest event's id (0 when none waits). */
  lastId(): number {
    const row = this.core.sql('SELECT max(id) AS id FROM relayed_events').get() as { id: bigint | null };
    return row.id === null ? 0 : int(row.id);
  }

  deleteThrough(id: number): void {
    this.core.sql('DELETE FROM relayed_events WHERE id <= ?').run(id);
  }

  /** SQLite's data_version: it moves when another connection commits (one PRAGMA, no table read). */
  dataVersion(): number {
    return Number(this.core.db.pragma('data_version', { simple: true }));
  }
}

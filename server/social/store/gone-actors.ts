import type { StoreCore } from './store.ts';

/** One remote actor or key known to be gone, until `expiresAt` (ms since the epoch). */
export interface GoneActorRow {
  id: string;
  expiresAt: number;
}

/** The remote actors and keys known to be gone (table gone_actors), kept across restarts. */
export class GoneActorRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Those not yet expired, the latest to expire last (expired ones are removed first). */
  live(): GoneActorRow[] {
    this.core.transaction(() => this.pruneExpired());
    return (
      this.core.sql('SELECT id, expires_at FROM gone_actors ORDER BY expires_at').all() as {
        id: string;
        expires_at: bigint;
      }[]
    ).map((r) => ({ id: r.id, expiresAt: Number(r.expires_at) }));
  }

  /** Keeps `id` as gone until `expiresAt`; expired rows go at the same time. */
  remember(id: string, expiresAt: number): void {
    this.core.transaction(() => {
      this.pruneExpired();
      this.core
        .sql(
          'INSERT INTO gone_actors (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at',
        )
        .run(id, expiresAt);
    });
  }

  /** No longer kept (pushed out of the bounded list). */
  forget(id: string): void {
    this.core.transaction(() => this.core.sql('DELETE FROM gone_actors WHERE id = ?').run(id));
  }

  private pruneExpired(): void {
    this.core.sql('DELETE FROM gone_actors WHERE expires_at <= ?').run(this.core.now());
  }
}

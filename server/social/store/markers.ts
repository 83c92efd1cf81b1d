import { int, str, type StoreCore } from './store.ts';

export type MarkerTimeline = 'home' | 'notifications';

export interface MarkerRow {
  timeline: MarkerTimeline;
  lastReadId: string;
  version: number;
  updatedAt: number;
}

/** Reading positions (Mastodon's markers): where a user stopped reading home and notifications, on any device. */
export class MarkerRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  get(accountId: string, timelines: readonly MarkerTimeline[]): MarkerRow[] {
    const rows = this.core.sql('SELECT * FROM markers WHERE account_id = ?').all(accountId) as Record<
      string,
      unknown
    >[];
    return rows
      .map((r) => ({
        timeline: r.timeline as MarkerTimeline,
        lastReadId: str(r.last_read_id),
        version: int(r.version),
        updatedAt: int(r.updated_at),
      }))
      .filter((m) => timelines.includes(m.timeline));
  }

  lastReadId(accountId: string, timeline: MarkerTimeline): string | null {
    const r = this.core
      .sql('SELECT last_read_id FROM markers WHERE account_id = ? AND timeline = ?')
      .get(accountId, timeline) as { last_read_id: bigint } | undefined;
    return r ? str(r.last_read_id) : null;
  }

  /** Moves a marker; each move bumps its version (clients detect conflicting devices by it). */
  set(accountId: string, timeline: MarkerTimeline, lastReadId: string): void {
    this.core
      .sql(
        `INSERT INTO markers (account_id, timeline, last_read_id, version, updated_at) VALUES (@account, @timeline, @last, 0, @now)
         ON CONFLICT (account_id, timeline) DO UPDATE SET last_read_id = excluded.last_read_id, version = version + 1, updated_at = excluded.updated_at`,
      )
      .run({ account: accountId, timeline, last: lastReadId, now: this.core.now() });
  }
}

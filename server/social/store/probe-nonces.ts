import type { StoreCore } from './store.ts';

const key = (nonce: string) => JSON.stringify(['self-check', nonce]);

/**
 * Nonces of the federation self-check, shared through social.db (the CLI issues one, the serving process confirms
 * it); kept in federation_kv, whose sweep removes them once expired.
 */
export class ProbeNonceRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  put(nonce: string, expiresAt: number): void {
    this.core
      .sql('INSERT INTO federation_kv (key, value, expires_at) VALUES (?, ?, ?)')
      .run(key(nonce), 'true', expiresAt);
  }

  /** True when the nonce was put here and has not expired. */
  live(nonce: string): boolean {
    const row = this.core.sql('SELECT expires_at FROM federation_kv WHERE key = ?').get(key(nonce)) as
      | { expires_at: bigint | null }
      | undefined;
    return row !== undefined && (row.expires_at === null || Number(row.expires_at) > this.core.now());
  }
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DamagedDatabaseError, openDatabase, type Database, type Migration } from '../../db/index.ts';
import type { UiPrincipal } from './principal.ts';

/** A signed-in session as kept: the principal, when it ends, and its credentials' stamp at sign-in. */
export interface StoredUiSession {
  principal: UiPrincipal;
  expiresAt: number;
  stamp: string;
}

/**
 * Where UI sessions are kept, by the SHA-256 of their token (a copy of the file gives no usable token).
 * A session that outlives the process signs a browser in again after a restart.
 */
export interface UiSessionStore {
  get(tokenHash: string): StoredUiSession | undefined;
  put(tokenHash: string, session: StoredUiSession): void;
  delete(tokenHash: string): void;
  deleteExpired(now: number): void;
  /** Drops the oldest sessions until at most `keep` are left. */
  trim(keep: number): void;
  readonly size: number;
  close(): void;
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('base64url');
}

/** In memory: what tests and a server without a data directory use; gone with the process. */
export class MemoryUiSessionStore implements UiSessionStore {
  private readonly sessions = new Map<string, StoredUiSession>();
  get(tokenHash: string) {
    return this.sessions.get(tokenHash);
  }
  put(tokenHash: string, session: StoredUiSession) {
    this.sessions.set(tokenHash, session);
  }
  delete(tokenHash: string) {
    this.sessions.delete(tokenHash);
  }
  deleteExpired(now: number) {
    for (const [hash, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(hash);
  }
  trim(keep: number) {
    // A Map iterates in insertion order: the first ones are the oldest.
    while (this.sessions.size > keep) this.sessions.delete(this.sessions.keys().next().value!);
  }
  get size() {
    return this.sessions.size;
  }
  close() {}
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ui sessions',
    up(db) {
      db.exec(`CREATE TABLE ui_sessions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        token_hash TEXT NOT NULL UNIQUE,
        principal TEXT NOT NULL,
        stamp TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      )`);
      db.exec('CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at)');
    },
  },
];

/** The file in the data directory; not in backups (a restored server asks everyone to sign in again). */
const UI_SESSIONS_FILE = 'ui-sessions.db';

/** Sessions in a small SQLite file of their own, so a restart of the server keeps browsers signed in. */
export class SqliteUiSessionStore implements UiSessionStore {
  private readonly db: Database;
  private readonly sql;

  /** `onDiscarded`: told when a damaged file was replaced by an empty one (everyone signs in again). */
  constructor(dataDir: string, onDiscarded: (err: Error) => void = () => {}) {
    const file = path.join(dataDir, UI_SESSIONS_FILE);
    const open = () => openDatabase(file, { migrations: MIGRATIONS, synchronous: 'FULL' });
    try {
      this.db = open();
    } catch (err) {
      // Sessions are not worth a server that does not start: a damaged file is dropped.
      if (!(err instanceof DamagedDatabaseError)) throw err;
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
      onDiscarded(err);
      this.db = open();
    }
    this.sql = {
      get: this.db.prepare('SELECT principal, stamp, expires_at FROM ui_sessions WHERE token_hash = ?'),
      put: this.db.prepare(
        'INSERT OR REPLACE INTO ui_sessions (token_hash, principal, stamp, expires_at) VALUES (?, ?, ?, ?)',
      ),
      delete: this.db.prepare('DELETE FROM ui_sessions WHERE token_hash = ?'),
      deleteExpired: this.db.prepare('DELETE FROM ui_sessions WHERE expires_at <= ?'),
      trim: this.db.prepare(
        'DELETE FROM ui_sessions WHERE seq IN (SELECT seq FROM ui_sessions ORDER BY seq DESC LIMIT -1 OFFSET ?)',
      ),
      count: this.db.prepare('SELECT count(*) AS n FROM ui_sessions'),
    };
  }

  get(tokenHash: string): StoredUiSession | undefined {
    const row = this.sql.get.get(tokenHash) as { principal: string; stamp: string; expires_at: number } | undefined;
    if (!row) return undefined;
    return { principal: JSON.parse(row.principal) as UiPrincipal, stamp: row.stamp, expiresAt: row.expires_at };
  }

  put(tokenHash: string, session: StoredUiSession): void {
    this.sql.put.run(tokenHash, JSON.stringify(session.principal), session.stamp, session.expiresAt);
  }

  delete(tokenHash: string): void {
    this.sql.delete.run(tokenHash);
  }

  deleteExpired(now: number): void {
    this.sql.deleteExpired.run(now);
  }

  trim(keep: number): void {
    this.sql.trim.run(keep);
  }

  get size(): number {
    return (this.sql.count.get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

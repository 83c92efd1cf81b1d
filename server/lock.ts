import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export class DataDirLockedError extends Error {
  readonly code = 'HOMEPORT_DATA_DIR_LOCKED';
  constructor(dataDir: string, pid: number | null) {
    super(`data directory ${dataDir} is in use by another Homeport server${pid ? ` (pid ${pid})` : ''}`);
  }
}

export const LOCK_FILE = 'homeport.lock';
const PID_FILE = 'homeport.pid';

/**
 * Keeps a second server off one data directory. The lock is an operating-system file lock, taken through
 * SQLite on `homeport.lock` (an exclusive-mode connection holds it until it closes): the system releases it
 * when its process ends in any way, SIGKILL included, so there is no stale lock to judge and no window
 * between checking and taking one. `homeport.pid` only names the holder in the error message.
 * Admin CLI commands do not take it: SQLite WAL lets them share the databases with the server.
 */
export function acquireDataDirLock(dataDir: string): { release(): void } {
  const file = path.join(dataDir, LOCK_FILE);
  removeLegacyLock(file);
  const db = new BetterSqlite3(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock, which locking_mode EXCLUSIVE keeps after the commit.
    db.exec(
      'BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder; INSERT INTO holder VALUES (' +
        process.pid +
        '); COMMIT',
    );
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY'))
      throw new DataDirLockedError(dataDir, readPid(dataDir));
    throw err;
  }
  fs.writeFileSync(path.join(dataDir, PID_FILE), String(process.pid));
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // The pid file first: once the lock is free another server may write its own.
      if (readPid(dataDir) === process.pid) fs.rmSync(path.join(dataDir, PID_FILE), { force: true });
      db.close();
    },
  };
}

/** Whether a server holds the data directory now (the lock is tried and given back at once). */
export function isDataDirLocked(dataDir: string): boolean {
  try {
    acquireDataDirLock(dataDir).release();
    return false;
  } catch (err) {
    if (err instanceof DataDirLockedError) return true;
    throw err;
  }
}

function readPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Homeport before 0.2 kept its pid as text in homeport.lock. Such a file is left only by a stopped server of
 * that version (a running one would be a different version on the same directory, which is not supported):
 * it is replaced by the real lock.
 */
function removeLegacyLock(file: string): void {
  let head: Buffer;
  try {
    head = Buffer.alloc(16);
    const fd = fs.openSync(file, 'r');
    const n = fs.readSync(fd, head, 0, 16, 0);
    fs.closeSync(fd);
    head = head.subarray(0, n);
  } catch {
    return;
  }
  if (head.length > 0 && !head.toString('latin1').startsWith('SQLite format 3')) fs.rmSync(file, { force: true });
}

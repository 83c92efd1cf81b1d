import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  readonly code = 'HOMEPORT_DATA_DIR_LOCKED';
  constructor(dataDir: string, pid: number) {
    super(`data directory ${dataDir} is in use by another Homeport server (pid ${pid})`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Keeps a second server off one data directory. The lock is a file holding the owner's pid,
 * created exclusively; a lock left by a dead process (crash, SIGKILL) is taken over.
 * Admin CLI commands do not take it: SQLite WAL lets them share the databases with the server.
 */
export function acquireDataDirLock(dataDir: string): { release(): void } {
  const file = path.join(dataDir, 'homeport.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) throw new DataDirLockedError(dataDir, pid);
      fs.rmSync(file, { force: true }); // stale: its owner is gone
    }
  }
  throw new Error(`could not lock data directory ${dataDir}`);
}

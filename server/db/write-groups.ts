import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './open.ts';

/**
 * Group commit for synchronous writers. A write runs at once, as a savepoint inside the group's transaction
 * (BEGIN IMMEDIATE when the first write of the turn comes); the group commits once, in a setImmediate after
 * everything that arrived in this turn of the event loop, so many requests share one COMMIT and one fsync.
 * Whoever answers a client waits for `durable()` first. A write that throws rolls back its own savepoint only;
 * its neighbours commit.
 *
 * The fsync runs off the event loop. On a connection at synchronous=FULL in WAL mode, a group's transaction runs
 * at NORMAL (its COMMIT writes the WAL and does not sync it: SQLite accepts the level only outside a transaction, so
 * it is set before BEGIN and put back after COMMIT, and every statement outside a group still commits at FULL);
 * the WAL file is then synced on libuv's thread pool, and only then does the group count as committed: its
 * waiters are released and `committed` fires. One sync at a time: groups committed while one runs share the next.
 * SQLite itself still syncs the WAL before a checkpoint copies it, and its header when it starts the file over.
 *
 * The event log's group commit queues closures and runs them at flush time; the social store's services are
 * synchronous (a route reads, checks and writes in one go), so here the writes run in place and only the
 * COMMIT is deferred.
 */
export interface WriteGroupHooks {
  /** A group's transaction began (the first write of a turn). */
  began(): void;
  /** The group's COMMIT returned: its writes are in the WAL, not yet on disk (`committed` or `failed` follows). */
  sealed?(): void;
  /** Everything the group wrote is on disk (groups are told in the order they committed). */
  committed(): void;
  /**
   * The group is lost: its COMMIT failed or SQLite rolled it back inside a write (`afterSeal` false: none of it is
   * kept), or the sync of its WAL failed after `sealed` (`afterSeal` true: not known to be on disk).
   */
  failed(error: unknown, afterSeal: boolean): void;
}

/** Syncs a file to disk (fs.fdatasync); tests replace it to delay or fail the sync. */
export type FileSync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

/** The write groups of each database, so that work which needs no transaction open can wait for the next COMMIT. */
const groupsOf = new WeakMap<Database, WriteGroups>();

/** The write groups of `db`, if it has any (tests reach the WAL's sync through it). */
export function writeGroupsOf(db: Database): WriteGroups | undefined {
  return groupsOf.get(db);
}

/**
 * Runs `fn` now if `db` has no write group open, else right after its group's COMMIT, before anything can open the
 * next one (under steady writes a group is open almost all the time: see the background checkpointer).
 */
export function betweenWriteGroups(db: Database, fn: () => void): void {
  const groups = groupsOf.get(db);
  if (groups?.open) groups.afterCommit(fn);
  else fn();
}

/** Most writes one group takes; the next write commits it first (bounds a group's WAL frames and its commit's time). */
const DEFAULT_MAX_WRITES = 2_000;

interface Group {
  writes: number;
  /** Made when someone first waits (a rejected promise nobody holds would be an unhandled rejection). */
  waiters: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | null;
}

/** PRAGMA synchronous's levels as SQLite reports them. */
const FULL = 2;

export class WriteGroups {
  private readonly db: Database;
  private readonly hooks: WriteGroupHooks;
  private readonly maxWrites: number;
  private readonly statements: Record<
    'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo',
    Statement
  >;
  private current: Group | null = null;
  private depth = 0;
  /** Run once the open group has committed or been lost (betweenWriteGroups). */
  private afterCommitQueue: (() => void)[] = [];
  /** The connection's own level (FULL or EXTRA): put back after each group's COMMIT. Null: no sync of our own. */
  private readonly ownLevel: number | null;
  /** Committed groups no sync has been started for yet, oldest first. */
  private unsynced: Group[] = [];
  /** The groups the running sync covers (null: none runs). */
  private syncing: Group[] | null = null;
  private walFd: number | null = null;
  /** A sync is running on the pool (it may be one flush() has settled already): the WAL file stays open meanwhile. */
  private syncRunning = false;
  private closeWalWhenIdle = false;
  /** A failed sync leaves every later frame of the WAL unreliable (recovery stops at the first bad frame). */
  private syncFailure: unknown = null;
  /** Syncs the WAL file (replaced by tests to delay or fail it). */
  syncFile: FileSync = fs.fdatasync;
  /** Groups committed so far (writes per commit = how much fsync the grouping saves). */
  commits = 0;
  /** Syncs of the WAL started so far (one covers every group committed while the previous one ran). */
  syncs = 0;

  constructor(db: Database, hooks: WriteGroupHooks, options: { maxWrites?: number } = {}) {
    this.db = db;
    this.hooks = hooks;
    this.maxWrites = options.maxWrites ?? DEFAULT_MAX_WRITES;
    const level = Number(db.pragma('synchronous', { simple: true }));
    const wal = db.pragma('journal_mode', { simple: true }) === 'wal';
    this.ownLevel = wal && level >= FULL ? level : null;
    const prepare = (sql: string) => db.prepare<[]>(sql);
    this.statements = {
      begin: prepare('BEGIN IMMEDIATE'),
      commit: prepare('COMMIT'),
      rollback: prepare('ROLLBACK'),
      savepoint: prepare('SAVEPOINT write_group'),
      release: prepare('RELEASE write_group'),
      rollbackTo: prepare('ROLLBACK TO write_group'),
    };
    groupsOf.set(db, this);
  }

  /** Queues `fn` for the moment the open group ends (its COMMIT, or its loss), before the next group can open. */
  afterCommit(fn: () => void): void {
    if (!this.afterCommitQueue.includes(fn)) this.afterCommitQueue.push(fn);
  }

  /** True while writes are not on disk yet (a group open, or committed and waiting for its sync). */
  get pending(): boolean {
    return this.current !== null || this.syncing !== null || this.unsynced.length > 0;
  }

  /** True while a group's transaction is open. */
  get open(): boolean {
    return this.current !== null;
  }

  /**
   * Runs `fn` (synchronous) as one write of the current group, opening one if none is. Returns what `fn`
   * returns; throws what it throws, after undoing what it wrote. Nested calls are savepoints of their own.
   */
  write<T>(fn: () => T): T {
    if (this.depth === 0) this.openGroup();
    const group = this.current!;
    this.depth++;
    this.statements.savepoint.run();
    try {
      const result = fn();
      if (result instanceof Promise) throw new TypeError('A write cannot span an await');
      this.statements.release.run();
      return result;
    } catch (error) {
      if (this.db.inTransaction) {
        this.statements.rollbackTo.run();
        this.statements.release.run();
      } else if (this.current === group) {
        // SQLite rolled the whole transaction back (disk full, I/O error): every write of the group is gone.
        this.lose(group, error);
      }
      throw error;
    } finally {
      this.depth--;
    }
  }

  /** Resolves once everything written so far is on disk; rejects if its group was lost. */
  durable(): Promise<void> {
    const group = this.current ?? this.unsynced.at(-1) ?? this.syncing?.at(-1);
    if (!group) return Promise.resolve();
    if (!group.waiters) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      group.waiters = { promise, resolve, reject };
    }
    return group.waiters.promise;
  }

  /**
   * Commits the open group now and syncs every committed one on the event loop (before the database closes); closes
   * the WAL file once no sync runs. Throws if the commit or the sync fails.
   */
  flush(): void {
    const group = this.current;
    if (group && this.depth === 0) this.commit(group, true);
    const waiting = [...(this.syncing ?? []), ...this.unsynced.splice(0)];
    this.closeWalWhenIdle = true;
    if (waiting.length) {
      // The sync that runs, if any, settles nothing when it ends: these are settled here.
      this.syncing = null;
      let failure: unknown = null;
      try {
        fs.fdatasyncSync(this.walFile());
      } catch (error) {
        failure = error;
      }
      this.settle(waiting, failure);
      if (failure) throw failure;
    }
    if (!this.syncRunning) this.closeWal();
  }

  private openGroup(): void {
    let open = this.current;
    if (open && !this.db.inTransaction) {
      // A statement outside any write (disk full) made SQLite roll the whole transaction back.
      this.lose(open, new Error('SQLite rolled the write group back'));
      open = null;
    }
    if (open && open.writes >= this.maxWrites) {
      this.commit(open, false);
      open = this.current; // one its listeners opened, if any
    }
    if (open) {
      open.writes++;
      return;
    }
    if (this.db.inTransaction)
      throw new Error('A write group cannot begin inside another transaction (use the store, not the database)');
    if (this.ownLevel !== null) this.db.pragma('synchronous = NORMAL');
    try {
      this.statements.begin.run();
    } catch (error) {
      this.restoreLevel();
      throw error;
    }
    const group: Group = { writes: 1, waiters: null };
    this.current = group;
    this.hooks.began();
    setImmediate(() => this.commit(group, false));
  }

  private commit(group: Group, rethrow: boolean): void {
    if (this.current !== group) return; // committed early (a full group, a flush) or lost
    try {
      this.statements.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.statements.rollback.run();
      this.lose(group, error);
      if (rethrow) throw error;
      return;
    }
    this.current = null;
    this.restoreLevel();
    this.hooks.sealed?.();
    this.commits++;
    this.runAfterCommit();
    if (this.ownLevel === null) {
      this.settle([group], null);
      return;
    }
    this.unsynced.push(group);
    this.startSync();
  }

  /** Syncs the WAL for every group committed since the last sync began, unless one runs (it starts the next). */
  private startSync(): void {
    if (this.syncing !== null || this.syncRunning || this.unsynced.length === 0) return;
    const batch = this.unsynced.splice(0);
    if (this.syncFailure !== null) return this.settle(batch, this.syncFailure);
    let fd: number;
    try {
      fd = this.walFile();
    } catch (error) {
      return this.settle(batch, error);
    }
    this.syncing = batch;
    this.syncRunning = true;
    this.syncs++;
    this.syncFile(fd, (error) => {
      this.syncRunning = false;
      if (this.syncing === batch) {
        this.syncing = null;
        this.settle(batch, error);
      } // else flush() settled it on the event loop
      if (this.unsynced.length) this.startSync();
      else if (this.closeWalWhenIdle) this.closeWal();
    });
  }

  /** Tells the hooks and the waiters of `groups`, oldest first, that they are on disk, or that the sync failed. */
  private settle(groups: Group[], error: unknown): void {
    if (error && this.syncFailure === null) this.syncFailure = error;
    for (const group of groups) {
      if (error) {
        this.hooks.failed(error, true);
        group.waiters?.reject(error);
      } else {
        this.hooks.committed();
        group.waiters?.resolve();
      }
    }
  }

  /**
   * The WAL file, opened once. SQLite deletes it only when the last connection closes, so while this one is open it
   * is the same file (a TRUNCATE checkpoint empties it in place). Its directory is synced once: SQLite does so when it
   * first syncs a new WAL at FULL, which a group's NORMAL commit never does.
   */
  private walFile(): number {
    this.closeWalWhenIdle = false;
    if (this.walFd === null) {
      this.walFd = fs.openSync(`${this.db.name}-wal`, 'r+');
      syncDirectory(path.dirname(this.db.name));
    }
    return this.walFd;
  }

  private closeWal(): void {
    if (this.walFd !== null) fs.closeSync(this.walFd);
    this.walFd = null;
  }

  private restoreLevel(): void {
    if (this.ownLevel !== null && !this.db.inTransaction) this.db.pragma(`synchronous = ${this.ownLevel}`);
  }

  private runAfterCommit(): void {
    for (const fn of this.afterCommitQueue.splice(0)) {
      try {
        fn();
      } catch {
        // Each queued task handles its own failures (a checkpoint found busy is asked again later).
      }
    }
  }

  private lose(group: Group, error: unknown): void {
    this.current = null;
    this.restoreLevel();
    this.runAfterCommit();
    this.hooks.failed(error, false);
    group.waiters?.reject(error);
  }
}

function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch {
    return; // Windows opens no directory; its file system keeps a new file's name with the file
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse to sync a directory; SQLite ignores that too.
  } finally {
    fs.closeSync(fd);
  }
}

type Statement = BetterSqlite3.Statement<[]>;

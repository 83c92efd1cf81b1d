import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './open.ts';

/**
 * Group commit for synchronous writers. A write runs at once, as a savepoint inside the group's transaction
 * (BEGIN IMMEDIATE when the first write of the turn comes); the group commits once, in a setImmediate after
 * everything that arrived in this turn of the event loop, so many requests share one COMMIT and one fsync
 * (synchronous=FULL stays: a committed group is on disk). Whoever answers a client waits for `durable()`
 * first. A write that throws rolls back its own savepoint only; its neighbours commit.
 *
 * The event log's group commit queues closures and runs them at flush time; the social store's services are
 * synchronous (a route reads, checks and writes in one go), so here the writes run in place and only the
 * COMMIT is deferred.
 */
export interface WriteGroupHooks {
  /** A group's transaction began (the first write of a turn). */
  began(): void;
  /** The group's COMMIT returned: everything it wrote is on disk. */
  committed(): void;
  /** The group's transaction was lost (COMMIT failed, or SQLite rolled it back inside a write): none of it is kept. */
  failed(error: unknown): void;
}

/** The write groups of each database, so that work which needs no transaction open can wait for the next COMMIT. */
const groupsOf = new WeakMap<Database, WriteGroups>();

/**
 * Runs `fn` now if `db` has no write group open, else right after its group's COMMIT, before anything can open the
 * next one (under steady writes a group is open almost all the time: see the background checkpointer).
 */
export function betweenWriteGroups(db: Database, fn: () => void): void {
  const groups = groupsOf.get(db);
  if (groups?.pending) groups.afterCommit(fn);
  else fn();
}

/** Most writes one group takes; the next write commits it first (bounds a group's WAL frames and its commit's time). */
const DEFAULT_MAX_WRITES = 2_000;

interface Group {
  writes: number;
  /** Made when someone first waits (a rejected promise nobody holds would be an unhandled rejection). */
  waiters: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | null;
}

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
  /** Groups committed so far (writes per commit = how much fsync the grouping saves). */
  commits = 0;

  constructor(db: Database, hooks: WriteGroupHooks, options: { maxWrites?: number } = {}) {
    this.db = db;
    this.hooks = hooks;
    this.maxWrites = options.maxWrites ?? DEFAULT_MAX_WRITES;
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

  /** True while a group holds writes that are not on disk yet. */
  get pending(): boolean {
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
    const group = this.current;
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

  /** Commits the open group now (before the database closes). Throws if the commit fails. */
  flush(): void {
    const group = this.current;
    if (group && this.depth === 0) this.commit(group, true);
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
    this.statements.begin.run();
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
    this.runAfterCommit();
    this.commits++;
    this.hooks.committed();
    group.waiters?.resolve();
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
    this.runAfterCommit();
    this.hooks.failed(error);
    group.waiters?.reject(error);
  }
}

type Statement = BetterSqlite3.Statement<[]>;

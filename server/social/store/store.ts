import type BetterSqlite3 from 'better-sqlite3';
import { type Database, valuesUnseenByPlanner, WriteGroups } from '../../db/index.ts';
import { SocialEvents } from '../events.ts';
import { SnowflakeGenerator } from '../ids.ts';

import { watchCredentialWrites, watchTableWrites, watchWrites } from './write-counters.ts';

export * from './pages.ts';
export * from './row-values.ts';

type Statement = BetterSqlite3.Statement<unknown[]>;

/**
 * Shared by the repositories: the database (opened with safe integers, so INTEGER columns read as BigInt),
 * a snowflake generator and the clock every repository uses for timestamps.
 */
export class StoreCore {
  readonly db: Database;
  readonly ids: SnowflakeGenerator;
  readonly now: () => number;
  /** Domain events emitted inside `transaction` are delivered after it commits (see events.ts). */
  readonly events = new SocialEvents();
  private readonly statements = new Map<string, Statement>();
  private groups: WriteGroups | null = null;
  /** Write groups SQLite rolled back (disk full): what was read from them is gone, so caches keyed on writes drop it. */
  lostGroups = 0;
  /** Transactions (writes) running now, nested ones counted. */
  private writing = 0;
  /** Inside `read`'s own transaction, and the write stamp of its snapshot once asked. */
  private reading = false;
  private snapshotStamp: string | null = null;
  /** data_version shared until the next microtask (see shareDataVersion). */
  private sharingVersion = false;
  private sharedVersion: bigint | null = null;
  /** This connection's writes to credential rows (see credentialStamp). */
  private readonly credentialWrites: { count: number };
  /** This connection's writes (see watchWrites). */
  private readonly writes: { count: number };
  /** This connection's writes to account and user rows (see accountStamp). */
  private readonly accountWrites: { count: number };
  /** This connection's writes to what a domain policy is made of (see domainPolicyStamp). */
  private readonly domainPolicyWrites: { count: number };
  /** This connection's writes to IP blocks (see ipBlockStamp). */
  private readonly ipBlockWrites: { count: number };

  constructor(db: Database, now: () => number) {
    this.db = db;
    this.now = now;
    this.ids = new SnowflakeGenerator(now);
    db.defaultSafeIntegers(true);
    this.writes = watchWrites(db);
    this.credentialWrites = watchCredentialWrites(db);
    this.accountWrites = watchTableWrites(db, 'account', { accounts: {}, users: {} });
    const federationMode = {
      INSERT: "WHEN NEW.key = 'federation_mode'",
      UPDATE: "WHEN OLD.key = 'federation_mode' OR NEW.key = 'federation_mode'",
      DELETE: "WHEN OLD.key = 'federation_mode'",
    };
    this.domainPolicyWrites = watchTableWrites(db, 'domain_policy', {
      domain_blocks: {},
      domain_allows: {},
      settings: federationMode,
    });
    this.ipBlockWrites = watchTableWrites(db, 'ip_block', { ip_blocks: {} });
  }

  /**
   * A prepared statement, compiled once per SQL text, whose parameters the planner cannot look into
   * (valuesUnseenByPlanner): SQLite would otherwise compile a statement with a bound LIMIT, a bound value it
   * weighs as a filter or compares with a partial index's condition again at every run.
   */
  sql(text: string): Statement {
    let s = this.statements.get(text);
    if (!s) {
      s = this.prepareOnce(text);
      this.statements.set(text, s);
    }
    return s;
  }

  /** A statement for one call (its text is built for it: an IN list, the columns to update), parameters as `sql`'s. */
  prepareOnce(text: string): Statement {
    return this.db.prepare(valuesUnseenByPlanner(text));
  }

  transaction<T>(fn: () => T): T {
    const groups = this.groups;
    const writing = () => {
      this.writing++;
      this.snapshotStamp = null;
      try {
        return fn();
      } finally {
        this.writing--;
      }
    };
    // Inside a transaction that is not the group's (a read, the federation queue's own): a savepoint of it.
    if (groups && (groups.open || !this.db.inTransaction)) return groups.write(() => this.events.batch(writing));
    // Nested calls run as savepoints; the bus holds their events until the outermost commit.
    return this.events.batch(() => this.db.transaction(writing).immediate());
  }

  /**
   * Changes whenever anything was written to the database since the last call saw it: by this connection
   * (its write statements, counted) or by another one, such as the admin CLI (data_version). What is cached under one stamp
   * is exactly what the database still says.
   */
  writeStamp(): string {
    // This connection's writes are counted in memory (watchWrites): one statement instead of two.
    return `${this.dataVersion()}:${this.writes.count}:${this.lostGroups}`;
  }

  /**
   * From now to the end of this synchronous run (the next microtask), every stamp shares one reading of SQLite's
   * data_version instead of one statement each (outside a transaction each takes and drops the WAL read lock:
   * about 9 µs in the server). A request's hooks and handler ask it up to four times. Sharing is safe: another
   * connection's commit after the reading is then seen as if it came after the request's reads began (what is
   * read may be newer than its stamp, which only makes a cache read it again), while this connection's writes
   * and lost groups move every stamp at once, shared or not.
   */
  shareDataVersion(): void {
    if (this.sharingVersion) return;
    this.sharingVersion = true;
    queueMicrotask(() => {
      this.sharingVersion = false;
      this.sharedVersion = null;
    });
  }

  private dataVersion(): bigint {
    if (this.sharedVersion !== null) return this.sharedVersion;
    const version = (this.sql('PRAGMA data_version').get() as { data_version: bigint }).data_version;
    if (this.sharingVersion) this.sharedVersion = version;
    return version;
  }

  /**
   * A stamp for what a bearer token resolves to (its token, application, user and account rows): moves when
   * this connection writes one of those rows (counted by triggers), when another connection writes anything
   * (the admin CLI suspending a user), or when a write group is lost. Unlike writeStamp it stays put while
   * posts, favourites and follows are written, so a token is not looked up again after each of them.
   */
  credentialStamp(): string {
    return this.watchedStamp(this.credentialWrites);
  }

  /**
   * A stamp for what an Account is made of (its accounts row, its user's row): moves when this connection writes
   * either (counted by triggers: a remote actor's Update, Delete or Move, a suspension, a domain block's severity
   * put on its accounts, a new key), when another connection writes anything, or when a write group is lost.
   * Statuses, follows, blocks and mutes leave it alone. Null inside a write (as cacheStamp: what a write reads
   * may be undone by its savepoint's rollback, which leaves the count where it was).
   */
  accountStamp(): string | null {
    return this.writing > 0 ? null : this.watchedStamp(this.accountWrites);
  }

  /**
   * A stamp for what a remote domain's policy is made of (domain blocks, domain allows, the federation mode
   * setting): moves when this connection writes one of those rows, when another connection writes anything, or
   * when a write group is lost. Null inside a write (see accountStamp).
   */
  domainPolicyStamp(): string | null {
    return this.writing > 0 ? null : this.watchedStamp(this.domainPolicyWrites);
  }

  /**
   * A stamp for the IP blocks: moves when this connection writes one, when another connection (the admin CLI)
   * writes anything, or when a write group is lost. Null inside a write (see accountStamp).
   */
  ipBlockStamp(): string | null {
    return this.writing > 0 ? null : this.watchedStamp(this.ipBlockWrites);
  }

  /**
   * cacheStamp less this connection's own writes: moves when another connection writes anything or a write group
   * is lost, null inside a write. For caches that follow this connection's writes row by row (RowMemo's triggers).
   */
  foreignStamp(): string | null {
    const stamp = this.cacheStamp();
    return stamp === null ? null : `${stamp.slice(0, stamp.indexOf(':'))}:${this.lostGroups}`;
  }

  private watchedStamp(writes: { count: number }): string {
    return `${this.dataVersion()}:${writes.count}:${this.lostGroups}`;
  }

  /**
   * The write stamp to cache reads under, or null inside a write: what a write has read may still be undone
   * by its savepoint's rollback, which leaves the stamp where it was.
   */
  cacheStamp(): string | null {
    if (this.writing > 0) return null;
    // Inside one read transaction nothing moves it unless a write runs (which forgets it): asked once.
    if (this.reading) return (this.snapshotStamp ??= this.writeStamp());
    return this.writeStamp();
  }

  /**
   * Group commit from now on (the server turns it on; the CLI and tests of the store alone commit each
   * transaction at once): transactions of one turn of the event loop share one COMMIT, after which their
   * events are delivered. Whoever answers a client awaits `durable()` first.
   */
  groupCommits(): void {
    this.groups ??= new WriteGroups(this.db, {
      began: () => this.events.hold(),
      // Announced only once on disk: streaming, push and federation never tell of a write a crash could undo.
      sealed: () => this.events.seal(),
      committed: () => this.events.releaseSealed(true),
      failed: (_error, afterSeal) => {
        this.lostGroups++;
        if (afterSeal) this.events.releaseSealed(false);
        else this.events.release(false);
      },
    });
  }

  /** True while writes wait for their group's COMMIT. */
  get writesPending(): boolean {
    return this.groups?.pending ?? false;
  }

  /** Resolves once every write made so far is on disk (at once without group commit); rejects if it was lost. */
  durable(): Promise<void> {
    return this.groups ? this.groups.durable() : Promise.resolve();
  }

  /** Write groups committed so far (0 without group commit). */
  get groupsCommitted(): number {
    return this.groups?.commits ?? 0;
  }

  /** Commits the waiting writes now (before the database closes). */
  flushWrites(): void {
    this.groups?.flush();
  }

  /**
   * Runs `fn` (synchronous: no other request may run inside it) in one deferred read transaction: everything
   * it reads comes from one snapshot, and SQLite takes its WAL read lock (and checks the files) once instead
   * of once per statement — about a tenth of a timeline page's cost in locking system calls.
   */
  read<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    // Prepared BEGIN/COMMIT: better-sqlite3's db.transaction(fn) builds a wrapper per call (4 of the 6 µs).
    return this.events.batch(() => {
      this.sql('BEGIN DEFERRED').run();
      let result: T;
      this.reading = true;
      this.snapshotStamp = null;
      try {
        result = fn();
        if (result instanceof Promise) throw new TypeError('A read transaction cannot span an await');
      } catch (error) {
        if (this.db.inTransaction) this.sql('ROLLBACK').run();
        throw error;
      } finally {
        this.reading = false;
        this.snapshotStamp = null;
      }
      this.sql('COMMIT').run();
      return result;
    });
  }
}

import { bool, idOrNull, int, intOrNull, jsonIds, jsonOr, sqlBool, str, type StoreCore } from './store.ts';

export interface PollRow {
  id: string;
  statusId: string | null;
  accountId: string;
  options: string[];
  multiple: boolean;
  hideTotals: boolean;
  expiresAt: number | null;
  expiryNotifiedAt: number | null;
  createdAt: number;
  /** A remote poll's counts per option as its server last reported them (empty for local polls). */
  cachedTallies: number[];
  /** A remote poll's voter count as reported (null: not reported, or a local poll). */
  votersCount: number | null;
}

function toPoll(r: Record<string, unknown>): PollRow {
  return {
    id: str(r.id),
    statusId: idOrNull(r.status_id),
    accountId: str(r.account_id),
    options: jsonOr<string[]>(r.options, []),
    multiple: bool(r.multiple),
    hideTotals: bool(r.hide_totals),
    expiresAt: intOrNull(r.expires_at),
    expiryNotifiedAt: intOrNull(r.expiry_notified_at),
    createdAt: int(r.created_at),
    cachedTallies: jsonOr<number[]>(r.cached_tallies, []),
    votersCount: intOrNull(r.voters_count),
  };
}

/** Votes of a poll: per option, the number of voters, and which options one account chose. */
export interface PollTally {
  perOption: number[];
  votes: number;
  voters: number;
}

export class PollRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: {
    accountId: string;
    statusId: string | null;
    options: string[];
    multiple: boolean;
    hideTotals: boolean;
    expiresAt: number;
  }): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO polls (id, status_id, account_id, options, multiple, hide_totals, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.statusId,
        input.accountId,
        JSON.stringify(input.options),
        sqlBool(input.multiple),
        sqlBool(input.hideTotals),
        input.expiresAt,
        now,
        now,
      );
    return id;
  }

  /** A poll of a remote status, with the counts its server reports. */
  insertRemote(input: {
    accountId: string;
    options: string[];
    multiple: boolean;
    expiresAt: number | null;
    tallies: number[];
    voters: number | null;
  }): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO polls (id, account_id, options, cached_tallies, multiple, expires_at, voters_count, votes_count, last_fetched_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.accountId,
        JSON.stringify(input.options),
        JSON.stringify(input.tallies),
        sqlBool(input.multiple),
        input.expiresAt,
        input.voters,
        sum(input.tallies),
        now,
        now,
        now,
      );
    return id;
  }

  /** New counts of a remote poll (its server's Update, or a local vote counted ahead of it). */
  setRemoteTallies(pollId: string, tallies: number[], voters: number | null, expiresAt?: number | null): void {
    this.core
      .sql(
        'UPDATE polls SET cached_tallies = ?, voters_count = ?, votes_count = ?, expires_at = coalesce(?, expires_at), last_fetched_at = ?, updated_at = ? WHERE id = ?',
      )
      .run(JSON.stringify(tallies), voters, sum(tallies), expiresAt ?? null, this.core.now(), this.core.now(), pollId);
  }

  setStatus(pollId: string, statusId: string): void {
    this.core.sql('UPDATE polls SET status_id = ? WHERE id = ?').run(statusId, pollId);
  }

  byId(id: string): PollRow | null {
    const r = this.core.sql('SELECT * FROM polls WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toPoll(r) : null;
  }

  byIds(ids: readonly string[]): Map<string, PollRow> {
    if (ids.length === 0) return new Map();
    const rows = (
      this.core.sql('SELECT * FROM polls WHERE id IN (SELECT value FROM json_each(?))').all(jsonIds(ids)) as Record<
        string,
        unknown
      >[]
    ).map(toPoll);
    return new Map(rows.map((p) => [p.id, p]));
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM polls WHERE id = ?').run(id);
  }

  tallies(polls: readonly PollRow[]): Map<string, PollTally> {
    const result = new Map<string, PollTally>();
    const local = polls.filter((p) => p.cachedTallies.length === 0);
    for (const p of polls) {
      if (p.cachedTallies.length === 0) result.set(p.id, { perOption: p.options.map(() => 0), votes: 0, voters: 0 });
      else {
        // Remote: the origin's counts (a local vote is added ahead of its next Update).
        const perOption = p.options.map((_, i) => p.cachedTallies[i] ?? 0);
        result.set(p.id, { perOption, votes: sum(perOption), voters: p.votersCount ?? sum(perOption) });
      }
    }
    if (local.length === 0) return result;
    const list = jsonIds(local.map((p) => p.id));
    for (const r of this.core
      .sql(
        'SELECT poll_id, choice, COUNT(*) AS n FROM poll_votes WHERE poll_id IN (SELECT value FROM json_each(?)) GROUP BY poll_id, choice',
      )
      .all(list) as {
      poll_id: bigint;
      choice: bigint;
      n: bigint;
    }[]) {
      const t = result.get(str(r.poll_id))!;
      const choice = int(r.choice);
      if (choice >= 0 && choice < t.perOption.length) t.perOption[choice] = int(r.n);
      t.votes += int(r.n);
    }
    for (const r of this.core
      .sql(
        'SELECT poll_id, COUNT(DISTINCT account_id) AS n FROM poll_votes WHERE poll_id IN (SELECT value FROM json_each(?)) GROUP BY poll_id',
      )
      .all(list) as { poll_id: bigint; n: bigint }[]) {
      result.get(str(r.poll_id))!.voters = int(r.n);
    }
    return result;
  }

  /** The choices an account made, per poll. */
  ownVotes(accountId: string, pollIds: readonly string[]): Map<string, number[]> {
    const result = new Map<string, number[]>();
    if (pollIds.length === 0) return result;
    for (const r of this.core
      .sql(
        'SELECT poll_id, choice FROM poll_votes WHERE account_id = ? AND poll_id IN (SELECT value FROM json_each(?)) ORDER BY choice',
      )
      .all(accountId, jsonIds(pollIds)) as {
      poll_id: bigint;
      choice: bigint;
    }[]) {
      const list = result.get(str(r.poll_id)) ?? [];
      list.push(int(r.choice));
      result.set(str(r.poll_id), list);
    }
    return result;
  }

  hasVoted(pollId: string, accountId: string): boolean {
    return (
      this.core.sql('SELECT 1 FROM poll_votes WHERE poll_id = ? AND account_id = ?').get(pollId, accountId) !==
      undefined
    );
  }

  insertVotes(pollId: string, accountId: string, choices: readonly number[]): void {
    const insert = this.core.sql(
      'INSERT INTO poll_votes (id, poll_id, account_id, choice, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    for (const choice of choices) insert.run(this.core.ids.next(), pollId, accountId, choice, this.core.now());
    this.core.sql('UPDATE polls SET updated_at = ? WHERE id = ?').run(this.core.now(), pollId);
  }

  /** Every account that voted, each once. */
  voterIds(pollId: string): string[] {
    return (
      this.core.sql('SELECT DISTINCT account_id FROM poll_votes WHERE poll_id = ?').pluck().all(pollId) as unknown[]
    ).map(str);
  }

  /** Local accounts that voted, each once. */
  localVoters(pollId: string): string[] {
    return (
      this.core
        .sql(
          'SELECT DISTINCT v.account_id FROM poll_votes v JOIN accounts a ON a.id = v.account_id WHERE v.poll_id = ? AND a.domain IS NULL',
        )
        .all(pollId) as { account_id: bigint }[]
    ).map((r) => str(r.account_id));
  }

  /** Polls that ended by `now` and have not notified yet. */
  dueForExpiry(now: number, limit: number): PollRow[] {
    return (
      this.core
        .sql(
          'SELECT * FROM polls WHERE expiry_notified_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?',
        )
        .all(now, limit) as Record<string, unknown>[]
    ).map(toPoll);
  }

  /** Claims a poll's expiry; false when it was claimed already (so it notifies exactly once). */
  claimExpiry(pollId: string): boolean {
    return (
      this.core
        .sql('UPDATE polls SET expiry_notified_at = ? WHERE id = ? AND expiry_notified_at IS NULL')
        .run(this.core.now(), pollId).changes > 0
    );
  }

  nextExpiry(): number | null {
    const r = this.core
      .sql('SELECT MIN(expires_at) AS t FROM polls WHERE expiry_notified_at IS NULL AND expires_at IS NOT NULL')
      .get() as { t: bigint | null };
    return intOrNull(r.t);
  }
}

function sum(list: readonly number[]): number {
  return list.reduce((a, b) => a + b, 0);
}

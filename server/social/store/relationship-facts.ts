/**
 * The facts of (viewer, target) for many targets at once: one query per relationship table, whatever the count
 * of targets, so a page of accounts costs a fixed number of queries.
 */
import type { FollowOptions, MuteRow, RelationshipFacts } from './relationship-rows.ts';
import { bool, intOrNull, jsonIds, jsonOr, str, type StoreCore } from './store.ts';

export function readRelationshipFacts(
  core: StoreCore,
  viewerId: string,
  targetIds: readonly string[],
): RelationshipFacts[] {
  if (targetIds.length === 0) return [];
  // One statement text whatever the count of targets: compiled once, not once per call.
  const list = 'SELECT value FROM json_each(?)';
  const ids = jsonIds(targetIds);
  const now = core.now();
  const opts = (r: Record<string, unknown>): FollowOptions => ({
    showReblogs: bool(r.show_reblogs),
    notify: bool(r.notify),
    languages: jsonOr<string[] | null>(r.languages, null),
  });
  const byTarget = <T>(rows: Record<string, unknown>[], key: string, value: (r: Record<string, unknown>) => T) =>
    new Map(rows.map((r) => [str(r[key]), value(r)]));
  const follows = byTarget(
    core
      .sql(`SELECT * FROM follows WHERE account_id = ? AND target_account_id IN (${list})`)
      .all(viewerId, ids) as Record<string, unknown>[],
    'target_account_id',
    opts,
  );
  const requests = byTarget(
    core
      .sql(`SELECT * FROM follow_requests WHERE account_id = ? AND target_account_id IN (${list})`)
      .all(viewerId, ids) as Record<string, unknown>[],
    'target_account_id',
    opts,
  );
  const followedBy = new Set(
    (
      core
        .sql(`SELECT account_id FROM follows WHERE target_account_id = ? AND account_id IN (${list})`)
        .all(viewerId, ids) as { account_id: bigint }[]
    ).map((r) => str(r.account_id)),
  );
  const requestedBy = new Set(
    (
      core
        .sql(`SELECT account_id FROM follow_requests WHERE target_account_id = ? AND account_id IN (${list})`)
        .all(viewerId, ids) as { account_id: bigint }[]
    ).map((r) => str(r.account_id)),
  );
  const blocking = new Set(
    (
      core
        .sql(`SELECT target_account_id FROM blocks WHERE account_id = ? AND target_account_id IN (${list})`)
        .all(viewerId, ids) as { target_account_id: bigint }[]
    ).map((r) => str(r.target_account_id)),
  );
  const blockedBy = new Set(
    (
      core
        .sql(`SELECT account_id FROM blocks WHERE target_account_id = ? AND account_id IN (${list})`)
        .all(viewerId, ids) as { account_id: bigint }[]
    ).map((r) => str(r.account_id)),
  );
  const mutes = byTarget(
    core
      .sql(
        `SELECT * FROM mutes WHERE account_id = ? AND target_account_id IN (${list}) AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .all(viewerId, ids, now) as Record<string, unknown>[],
    'target_account_id',
    (r): MuteRow => ({
      id: str(r.id),
      hideNotifications: bool(r.hide_notifications),
      expiresAt: intOrNull(r.expires_at),
    }),
  );
  const domainBlocked = new Set(
    (
      core
        .sql(
          `SELECT a.id FROM accounts a JOIN account_domain_blocks d ON d.domain = a.domain AND d.account_id = ? WHERE a.id IN (${list})`,
        )
        .all(viewerId, ids) as { id: bigint }[]
    ).map((r) => str(r.id)),
  );
  const endorsed = new Set(
    (
      core
        .sql(`SELECT target_account_id FROM account_pins WHERE account_id = ? AND target_account_id IN (${list})`)
        .all(viewerId, ids) as { target_account_id: bigint }[]
    ).map((r) => str(r.target_account_id)),
  );
  const notes = byTarget(
    core
      .sql(
        `SELECT target_account_id, comment FROM account_notes WHERE account_id = ? AND target_account_id IN (${list})`,
      )
      .all(viewerId, ids) as Record<string, unknown>[],
    'target_account_id',
    (r) => r.comment as string,
  );
  return targetIds.map((id) => ({
    id,
    follow: follows.get(id) ?? null,
    followRequest: requests.get(id) ?? null,
    followedBy: followedBy.has(id),
    requestedBy: requestedBy.has(id),
    blocking: blocking.has(id),
    blockedBy: blockedBy.has(id),
    mute: mutes.get(id) ?? null,
    domainBlocking: domainBlocked.has(id),
    endorsed: endorsed.has(id),
    note: notes.get(id) ?? '',
  }));
}

/*
 * Which statuses an account may read and which accounts it hides, as SQL fragments over a table alias: the
 * timelines, threads and link timeline build their queries from these.
 */

/**
 * The author of status `a` is neither suspended nor deleted. Asked of the small partial index of
 * unavailable accounts (a plain EXISTS made SQLite scan the accounts table into a Bloom filter per query).
 */
export function available(a: string, scope?: ViewerScope): string {
  // No account is suspended or deleted (the usual case): the per-row subquery would cost every listing ~2 µs a row.
  if (scope?.unavailableAccounts === false) return '1';
  return `NOT EXISTS (SELECT 1 FROM accounts ${a}_author INDEXED BY accounts_unavailable WHERE ${a}_author.id = ${a}.account_id AND (${a}_author.suspended_at IS NOT NULL OR ${a}_author.deleted_at IS NOT NULL))`;
}

/**
 * Status `a` is one @viewer may read (NULL viewer: public and unlisted ones): its own, public or unlisted
 * unless the author blocks the viewer, private to followers, and anything that mentions the viewer.
 */
export function visible(a: string, viewer = '@viewer'): string {
  return `(${a}.account_id = ${viewer}
    OR (${a}.visibility IN ('public', 'unlisted') AND NOT EXISTS (SELECT 1 FROM blocks ${a}_vb WHERE ${a}_vb.account_id = ${a}.account_id AND ${a}_vb.target_account_id = ${viewer}))
    OR (${a}.visibility = 'private' AND EXISTS (SELECT 1 FROM follows ${a}_vf WHERE ${a}_vf.account_id = ${viewer} AND ${a}_vf.target_account_id = ${a}.account_id))
    OR EXISTS (SELECT 1 FROM mentions ${a}_vm WHERE ${a}_vm.status_id = ${a}.id AND ${a}_vm.account_id = ${viewer}))`;
}

/** Which of the viewer's filters exist at all (queries leave out the checks that cannot match). */
export interface ViewerScope {
  viewerId: string | null;
  blocks: boolean;
  mutes: boolean;
  domainBlocks: boolean;
  /** The viewer has exclusive lists: their members' posts stay out of home (absent: none). */
  exclusiveLists?: boolean;
  /** Some account is suspended or deleted, so listings must leave out its statuses (absent: assume so). */
  unavailableAccounts?: boolean;
}

/** The account `accountExpr` is not hidden from the viewer: no block either way, no active mute, no domain block. */
export function notHidden(accountExpr: string, scope: ViewerScope, tag: string, viewer = '@viewer'): string {
  if (scope.viewerId === null) return '1';
  const parts: string[] = [];
  if (scope.blocks) {
    parts.push(
      `NOT EXISTS (SELECT 1 FROM blocks ${tag}_b1 WHERE ${tag}_b1.account_id = ${viewer} AND ${tag}_b1.target_account_id = ${accountExpr})`,
    );
    parts.push(
      `NOT EXISTS (SELECT 1 FROM blocks ${tag}_b2 WHERE ${tag}_b2.account_id = ${accountExpr} AND ${tag}_b2.target_account_id = ${viewer})`,
    );
  }
  if (scope.mutes)
    parts.push(
      `NOT EXISTS (SELECT 1 FROM mutes ${tag}_m WHERE ${tag}_m.account_id = ${viewer} AND ${tag}_m.target_account_id = ${accountExpr} AND (${tag}_m.expires_at IS NULL OR ${tag}_m.expires_at > @now))`,
    );
  if (scope.domainBlocks) {
    parts.push(
      `NOT EXISTS (SELECT 1 FROM accounts ${tag}_da JOIN account_domain_blocks ${tag}_d ON ${tag}_d.domain = ${tag}_da.domain AND ${tag}_d.account_id = ${viewer} WHERE ${tag}_da.id = ${accountExpr})`,
    );
  }
  return parts.length ? parts.join(' AND ') : '1';
}

/** A reblog wrapper `a` is shown only when the reblogged status is readable and its author not hidden. */
export function reblogReadable(a: string, scope: ViewerScope, viewer = '@viewer'): string {
  return `(${a}.reblog_of_id IS NULL OR EXISTS (SELECT 1 FROM statuses ${a}_r WHERE ${a}_r.id = ${a}.reblog_of_id AND ${a}_r.deleted_at IS NULL
    AND ${available(`${a}_r`, scope)} AND ${visible(`${a}_r`, viewer)} AND ${notHidden(`${a}_r.account_id`, scope, `${a}_rh`, viewer)}))`;
}

/** The author of `a` is not a member of one of the viewer's exclusive lists (whose posts stay out of home). */
export const NOT_IN_EXCLUSIVE_LIST = (a: string) =>
  `NOT EXISTS (SELECT 1 FROM list_accounts ${a}_la JOIN lists ${a}_l ON ${a}_l.id = ${a}_la.list_id WHERE ${a}_la.account_id = ${a}.account_id AND ${a}_l.account_id = @viewer AND ${a}_l.exclusive = 1)`;

/**
 * A reply in `a` belongs in list @list per its replies policy (Mastodon's): replies to oneself and to the
 * list's owner always; `followed`: to anyone the owner follows; `list`: to a member; `none`: no others.
 */
export const LIST_REPLIES = (
  a: string,
) => `(${a}.in_reply_to_id IS NULL OR ${a}.in_reply_to_account_id = ${a}.account_id OR ${a}.in_reply_to_account_id = @viewer
  OR (@policy = 'followed' AND EXISTS (SELECT 1 FROM follows ${a}_rf WHERE ${a}_rf.account_id = @viewer AND ${a}_rf.target_account_id = ${a}.in_reply_to_account_id))
  OR (@policy = 'list' AND EXISTS (SELECT 1 FROM list_accounts ${a}_rl WHERE ${a}_rl.list_id = @list AND ${a}_rl.account_id = ${a}.in_reply_to_account_id)))`;

/** Not a reply, or a reply to oneself (Mastodon's "without replies"). */
export const WITHOUT_REPLIES = (a: string) =>
  `(${a}.in_reply_to_id IS NULL OR ${a}.in_reply_to_account_id = ${a}.account_id)`;
export const WITH_MEDIA = (a: string) =>
  `EXISTS (SELECT 1 FROM media_attachments ${a}_media WHERE ${a}_media.status_id = ${a}.id)`;

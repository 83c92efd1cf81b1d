import { toFollow, type FollowRow, type MuteRow } from './relationship-rows.ts';
import type { RelationshipRepository } from './relationships.ts';
import { str, type StoreCore } from './store.ts';

/** What an account move carries over from the old account to the new: local follows, blocks, mutes and notes. */
export class MoveCarryOverQueries {
  private readonly core: StoreCore;
  private readonly relationships: RelationshipRepository;
  constructor(core: StoreCore, relationships: RelationshipRepository) {
    this.core = core;
    this.relationships = relationships;
  }

  /** Who on this server follows `targetId`, with their follow options (an account move carries them over). */
  localFollowsOf(targetId: string): FollowRow[] {
    return (
      this.core
        .sql(
          'SELECT f.* FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = ? AND a.domain IS NULL',
        )
        .all(targetId) as Record<string, unknown>[]
    ).map(toFollow);
  }

  /** Local accounts blocking or muting `targetId` (an account move carries blocks and mutes over). */
  localBlockersAndMuters(targetId: string): { blockers: string[]; muters: { accountId: string; mute: MuteRow }[] } {
    const blockers = (
      this.core
        .sql(
          'SELECT b.account_id FROM blocks b JOIN accounts a ON a.id = b.account_id WHERE b.target_account_id = ? AND a.domain IS NULL',
        )
        .pluck()
        .all(targetId) as unknown[]
    ).map(str);
    const muters = (
      this.core
        .sql(
          'SELECT m.account_id FROM mutes m JOIN accounts a ON a.id = m.account_id WHERE m.target_account_id = ? AND a.domain IS NULL',
        )
        .pluck()
        .all(targetId) as unknown[]
    ).flatMap((id) => {
      const mute = this.relationships.mute(str(id), targetId);
      return mute ? [{ accountId: str(id), mute }] : [];
    });
    return { blockers, muters };
  }

  /** Every private note about `targetId` (an account move copies them to the new account). */
  notesAbout(targetId: string): { accountId: string; comment: string }[] {
    return (
      this.core.sql('SELECT account_id, comment FROM account_notes WHERE target_account_id = ?').all(targetId) as {
        account_id: unknown;
        comment: string;
      }[]
    ).map((r) => ({
      accountId: str(r.account_id),
      comment: r.comment,
    }));
  }
}

import type { MarkerRow, MarkerTimeline, SocialStore } from '../store/index.ts';

/** Reading positions: a user moves the markers of home and notifications, together, from any device. */
export class MarkerService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** Moves each marker named (in one transaction: both move or neither) and returns them as they now are. */
  move(accountId: string, moves: readonly { timeline: MarkerTimeline; lastReadId: string }[]): MarkerRow[] {
    this.store.transaction(() => {
      for (const m of moves) this.store.markers.set(accountId, m.timeline, m.lastReadId);
    });
    return this.store.markers.get(
      accountId,
      moves.map((m) => m.timeline),
    );
  }
}

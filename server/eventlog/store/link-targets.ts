/**
 * Link targets shared between links: many `$>` links to one event materialize that event once, however
 * many reads, pages or subscribers hold it at the same time. Keyed by the target's position, which is never
 * handed out twice; held weakly, so an entry lives exactly as long as someone still uses the event.
 */
import type { RecordedEvent } from './types.ts';

export class LinkTargets {
  private readonly byPosition = new Map<number, WeakRef<RecordedEvent>>();
  private readonly cleanup = new FinalizationRegistry<number>((position) => {
    if (this.byPosition.get(position)?.deref() === undefined) this.byPosition.delete(position);
  });

  /** The event at `position`, shared if it is still in use, else loaded (and shared from now on). */
  get(position: number, load: () => RecordedEvent | undefined): RecordedEvent | undefined {
    const shared = this.byPosition.get(position)?.deref();
    if (shared) return shared;
    const loaded = load();
    if (loaded) {
      this.byPosition.set(position, new WeakRef(loaded));
      this.cleanup.register(loaded, position);
    }
    return loaded;
  }

  /** Targets currently tracked (for tests and diagnostics). */
  get size(): number {
    return this.byPosition.size;
  }
}

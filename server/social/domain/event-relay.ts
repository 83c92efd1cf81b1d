import type { Logger } from '../../logger.ts';
import type { SocialEventType } from '../events.ts';
import type { SocialStore } from '../store/index.ts';

/** How often the running server looks for commits by another process (one PRAGMA when there were none). */
export const RELAY_POLL_MS = 200;
const BATCH = 100;
const ANNOUNCED_AT_START: ReadonlySet<string> = new Set<SocialEventType>(['account.deleted']);

/**
 * The admin CLI changes social.db while `serve` may run in another process. Its domain events are written to
 * `relayed_events` inside the transaction that raised them (so they exist exactly when the change does).
 */
export function relayEventsToTable(store: SocialStore): void {
  store.events.relay = (type, event) => store.relayedEvents.append(type, event);
}

export interface EventRelay {
  /** Starts delivering what committed since the last look (the timer calls it; tests may too). */
  poll(): void;
  close(): void;
}

/**
 * The running server's side: each commit by another connection (SQLite's data_version moves) is looked at,
 * and the events it relayed are delivered to this process's listeners (streaming, Web Push, federation), as
 * if raised here, then deleted. Events the CLI raised while no server ran are delivered at start, once every
 * listener is in place, so a change made meanwhile has its effects (a sign-up's push, a profile's Update to
 * other servers), as Mastodon's queued jobs run when it comes back; streams simply have no subscriber yet.
 * Deletions are the exception: federation's start announces every one still unannounced already.
 *
 * A batch of events per turn of the event loop: a bulk change by the CLI leaves many (a 200,000-status import
 * left 249,000, which delivered in one go held the start for 41 s and the heap at 737 MiB, as every listener's
 * work for all of them was queued before any of it ran). Between batches the listeners' queues drain and
 * requests are answered.
 */
export function startEventRelay(store: SocialStore, logger: Logger, intervalMs = RELAY_POLL_MS): EventRelay {
  const dataVersion = () => store.relayedEvents.dataVersion();
  let last = 0;
  let seen = dataVersion();
  /** The events relayed before this start (deletions among them are announced by federation's start). */
  const relayedBeforeStart = store.relayedEvents.lastId();
  let draining = false;
  let closed = false;
  /** Delivers the next batch; true when there may be more. */
  const deliverBatch = (): boolean => {
    const rows = store.relayedEvents.after(last, BATCH);
    for (const row of rows) {
      last = row.id;
      if (row.id <= relayedBeforeStart && ANNOUNCED_AT_START.has(row.type)) continue;
      try {
        store.events.deliverRelayed(row.type as SocialEventType, JSON.parse(row.payload));
      } catch (err) {
        logger.error({ err, type: row.type }, 'a relayed event could not be delivered');
      }
    }
    if (rows.length) store.relayedEvents.deleteThrough(last);
    return rows.length === BATCH;
  };
  const drain = () => {
    if (closed) return;
    let more = false;
    try {
      more = deliverBatch();
    } catch (err) {
      logger.error({ err }, 'reading relayed events failed');
    }
    if (more) setImmediate(drain);
    else draining = false;
  };
  const startDraining = () => {
    if (draining || closed) return;
    draining = true;
    setImmediate(drain);
  };
  const poll = () => {
    const version = dataVersion();
    if (version === seen) return;
    seen = version;
    startDraining();
  };
  startDraining();
  const timer = setInterval(() => {
    try {
      poll();
    } catch (err) {
      logger.error({ err }, 'reading relayed events failed');
    }
  }, intervalMs);
  timer.unref();
  return {
    poll,
    close: () => {
      closed = true;
      clearInterval(timer);
    },
  };
}

import type { FedDeps } from './deps.ts';

/** Activities that found another one about the same object being handled, and waited for it (tests count it). */
export const objectTurnWaits = { count: 0 };

/** Per server: the last task queued for each object, settled when it ends. */
const tails = new WeakMap<FedDeps, Map<string, Promise<void>>>();

/**
 * Runs `task` once every earlier task about the object `uri` on this server has ended. The inbox queue runs
 * several activities at once, and a Create stays in its listener while it fetches what the post quotes or
 * checks a stamp: an Update or Delete of the same post arriving meanwhile would find nothing to change and be
 * lost (Mastodon holds a lock per object URI for the same reason). A promise chain per key, not a package:
 * nothing else here needs a mutex library, and the chain is dropped when its last task ends.
 */
export async function oneObjectAtATime<T>(deps: FedDeps, uri: string, task: () => Promise<T>): Promise<T> {
  let byUri = tails.get(deps);
  if (!byUri) {
    byUri = new Map();
    tails.set(deps, byUri);
  }
  const before = byUri.get(uri);
  let ended = () => {};
  const mine = new Promise<void>((resolve) => (ended = resolve));
  const tail = before ? before.then(() => mine) : mine;
  byUri.set(uri, tail);
  try {
    if (before) {
      objectTurnWaits.count++;
      await before;
    }
    return await task();
  } finally {
    ended();
    if (byUri.get(uri) === tail) byUri.delete(uri);
  }
}

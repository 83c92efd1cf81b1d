/*
 * How much an activity delivered to an inbox may hold. Fedify reads an activity whole before any listener of
 * ours runs, and twice (once to verify it, once to route it): every embedded object costs a JSON-LD expansion
 * (about a millisecond each here) and every other value tens of microseconds, on the event loop. A Create of
 * 5,000 attachments took 5 s of it, 24,000 addressees 1.3 s, within the 1 MB an inbox reads. The body cannot
 * be trimmed first (its signature covers every byte), so an activity past these bounds is refused before
 * Fedify reads it; the largest in the recorded corpus of Mastodon, Misskey, Pleroma, PeerTube and Hubzilla
 * payloads holds 60 objects. What is accepted is then read only as far as Homeport keeps it (16 attachments,
 * 64 tags), without fetching what is given by address only.
 */

/** A document loader that never fetches: for values that must come embedded (emoji images, poll counts). */
export const refuseToFetch = (url: string) => Promise.reject(new Error(`not fetched: ${url}`));

/**
 * Options of Fedify's property getters (getTags, getAttachments…) that read only what the document embeds: an
 * entry given by its address alone (or embedded with an id on another server, which Fedify would fetch again
 * to trust) is skipped instead of fetched.
 */
export const WITHOUT_FETCHING = { documentLoader: refuseToFetch, suppressError: true } as const;

/** JSON objects an inbound activity may hold, its JSON-LD context included. */
export const MAX_ACTIVITY_OBJECTS = 256;
/** Values of any kind (objects, array items, strings, numbers…) an inbound activity may hold. */
export const MAX_ACTIVITY_VALUES = 4_096;

/** Why an inbox delivery's body, parsed, is too large to be read, or null when it is within the bounds. */
export function oversizedActivity(json: unknown): string | null {
  let objects = 0;
  let values = 0;
  // Iterative, so that deep nesting costs no stack; stops at the first bound crossed.
  const pending: unknown[] = [json];
  while (pending.length > 0) {
    const value = pending.pop();
    if (++values > MAX_ACTIVITY_VALUES) return `it holds more than ${MAX_ACTIVITY_VALUES} values`;
    if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (typeof value === 'object' && value !== null) {
      if (++objects > MAX_ACTIVITY_OBJECTS) return `it holds more than ${MAX_ACTIVITY_OBJECTS} objects`;
      for (const key in value) pending.push((value as Record<string, unknown>)[key]);
    }
  }
  return null;
}

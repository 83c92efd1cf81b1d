/**
 * Where recently written event ids first occurred, for the idempotency check of ExpectedVersion.Any and
 * StreamExists (a retried write finds its events by id). EventStoreDB answers that check from a bounded
 * memory cache of committed events, not from a durable index, and so does this: a durable index of random
 * 16-byte ids made every commit rewrite about one B-tree page per event (measured on this schema, 300
 * events per commit over 640 streams: 24.5k rows/s with the index, 44k without). The cache is warmed
 * from the tail of the log at start, so a retry across a restart still finds its events; an id older
 * than the window is a new write, as in EventStoreDB. Exact-version retries do not need it (they compare
 * the ids stored at the expected numbers).
 *
 * All of its memory is allocated, and touched, when it is made, so a busy log's memory does not grow while the
 * window fills (the soak saw it grow for over an hour at 50 events/s): a ring of slots, each an id's 16 bytes, its
 * stream key and its event number (32 bytes), and an open-addressing index of 4-byte slot numbers with at least
 * twice as many places as slots (linear probing, deletion by backward shift). 200,000 ids (the default) take
 * 8.5 MB. A Map of string keys cost about 210 bytes per id in a heap snapshot (its table, the 16-character
 * strings, and the key array, which V8 keeps as a dictionary past 100,000 elements) and grew in steps as it
 * doubled its tables. Ids are looked up by their key (eventIdKey), which a request computes once per event: an
 * append looks its ids up in the commit's batch and here, adds them to the batch and, after COMMIT, here.
 */
import crypto from 'node:crypto';
import { type Database, valuesUnseenByPlanner } from '../../db/index.ts';

export interface EventIdHit {
  streamKey: number;
  eventNumber: number;
}

const ID_BYTES = 16;
const EMPTY = -1;

export class RecentEventIds {
  readonly capacity: number;
  /** The ring: slot i holds the id at ids[16i, 16i + 16). */
  private readonly ids: Uint8Array;
  private readonly streamKeys: Float64Array;
  private readonly numbers: Float64Array;
  /** Index places: a slot number, or EMPTY. */
  private readonly places: Int32Array;
  private readonly mask: number;
  /**
   * Mixed into every hash: event ids are chosen by clients, and a known hash would let one write ids that all
   * land in one run of places and turn every lookup into a scan.
   */
  private readonly seed = crypto.randomBytes(4).readInt32LE(0);
  private next = 0;
  private used = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.trunc(capacity));
    this.ids = new Uint8Array(this.capacity * ID_BYTES).fill(0);
    this.streamKeys = new Float64Array(this.capacity).fill(0);
    this.numbers = new Float64Array(this.capacity).fill(0);
    const places = 2 ** Math.ceil(Math.log2(this.capacity * 2));
    this.places = new Int32Array(places).fill(EMPTY);
    this.mask = places - 1;
  }

  /** Bytes the window holds, all of them from the start. */
  get bytes(): number {
    return this.ids.byteLength + this.streamKeys.byteLength + this.numbers.byteLength + this.places.byteLength;
  }

  get size(): number {
    return this.used;
  }

  get(key: string): EventIdHit | undefined {
    const slot = this.find(key);
    return slot === EMPTY ? undefined : { streamKey: this.streamKeys[slot], eventNumber: this.numbers[slot] };
  }

  /** Remembers an id's first occurrence (a later write of the same id does not replace it). */
  add(key: string, streamKey: number, eventNumber: number): void {
    if (key.length !== ID_BYTES) throw new Error(`an event id key has ${ID_BYTES} characters, not ${key.length}`);
    if (this.find(key) !== EMPTY) return;
    const slot = this.next;
    this.next = (slot + 1) % this.capacity;
    if (this.used === this.capacity) this.forget(slot);
    else this.used++;
    const at = slot * ID_BYTES;
    for (let i = 0; i < ID_BYTES; i++) this.ids[at + i] = key.charCodeAt(i);
    this.streamKeys[slot] = streamKey;
    this.numbers[slot] = eventNumber;
    let place = this.hashOfKey(key) & this.mask;
    while (this.places[place] !== EMPTY) place = (place + 1) & this.mask;
    this.places[place] = slot;
  }

  /** Loads the newest `capacity` events of the log, oldest first so that first occurrences win. */
  warm(db: Database): void {
    const rows = db
      .prepare(
        valuesUnseenByPlanner('SELECT event_id, stream_key, event_number FROM events ORDER BY position DESC LIMIT ?'),
      )
      .raw()
      .all(this.capacity) as [Buffer, number, number][];
    for (let i = rows.length - 1; i >= 0; i--) this.add(eventIdKey(rows[i][0]), rows[i][1], rows[i][2]);
  }

  private find(key: string): number {
    if (key.length !== ID_BYTES) return EMPTY;
    for (let place = this.hashOfKey(key) & this.mask; ; place = (place + 1) & this.mask) {
      const slot = this.places[place];
      if (slot === EMPTY) return EMPTY;
      if (this.slotHolds(slot, key)) return slot;
    }
  }

  private slotHolds(slot: number, key: string): boolean {
    const at = slot * ID_BYTES;
    for (let i = 0; i < ID_BYTES; i++) if (this.ids[at + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  /** Takes the id in `slot` out of the index, moving later places of its run back (no tombstones). */
  private forget(slot: number): void {
    let place = this.hashOfSlot(slot) & this.mask;
    while (this.places[place] !== slot) place = (place + 1) & this.mask;
    let hole = place;
    for (let at = (hole + 1) & this.mask; this.places[at] !== EMPTY; at = (at + 1) & this.mask) {
      const home = this.hashOfSlot(this.places[at]) & this.mask;
      // The entry at `at` may fill the hole unless its home lies cyclically in (hole, at].
      if (((at - home) & this.mask) >= ((at - hole) & this.mask)) {
        this.places[hole] = this.places[at];
        hole = at;
      }
    }
    this.places[hole] = EMPTY;
  }

  private hashOfKey(key: string): number {
    const word = (i: number) =>
      key.charCodeAt(i) | (key.charCodeAt(i + 1) << 8) | (key.charCodeAt(i + 2) << 16) | (key.charCodeAt(i + 3) << 24);
    return finish(mixWord(mixWord(mixWord(mixWord(this.seed, word(0)), word(4)), word(8)), word(12)));
  }

  private hashOfSlot(slot: number): number {
    const ids = this.ids;
    const at = slot * ID_BYTES;
    const word = (i: number) =>
      ids[at + i] | (ids[at + i + 1] << 8) | (ids[at + i + 2] << 16) | (ids[at + i + 3] << 24);
    return finish(mixWord(mixWord(mixWord(mixWord(this.seed, word(0)), word(4)), word(8)), word(12)));
  }
}

/** MurmurHash3 (32-bit): one block mixed into the hash. */
function mixWord(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3's finalizer (the 16 bytes' length mixed in): every input bit reaches the low bits the index uses. */
function finish(h: number): number {
  h ^= ID_BYTES;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** An event id's 16 bytes as a 16-character one-byte string: a cheap Map key. */
export function eventIdKey(id: Buffer): string {
  return id.toString('latin1');
}

/**
 * Ids written by the commit under way: looked up before the cache, added to it only after COMMIT. Each id's first
 * occurrence is an index into two arrays, not an object per event (a hit, an idempotent retry, is the rare case).
 */
export class BatchEventIds {
  private readonly firsts = new Map<string, number>();
  private readonly streamKeys: number[] = [];
  private readonly numbers: number[] = [];

  get(key: string): EventIdHit | undefined {
    const i = this.firsts.get(key);
    return i === undefined ? undefined : { streamKey: this.streamKeys[i], eventNumber: this.numbers[i] };
  }

  add(key: string, streamKey: number, eventNumber: number): void {
    if (this.firsts.has(key)) return;
    this.firsts.set(key, this.numbers.length);
    this.streamKeys.push(streamKey);
    this.numbers.push(eventNumber);
  }

  /** Moves the committed ids into the cache, in the order they were written (first occurrences win). */
  commitTo(cache: RecentEventIds): void {
    for (const [key, i] of this.firsts) cache.add(key, this.streamKeys[i], this.numbers[i]);
  }
}

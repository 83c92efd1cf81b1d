import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterService } from '../domain/index.ts';
import { SocialEvents } from '../events.ts';
import type { StatusRow } from '../status-row.ts';
import type { SocialStore } from '../store/index.ts';
import { temporaryStore } from '../testing/store.ts';
import { SocialUrls } from '../urls.ts';
import { STATUS_TEXT_BYTES, STATUS_TEXT_VIEWERS, StatusTexts, type ViewerTexts } from './status-texts.ts';

/*
 * The kept status texts' two bounds, at their real sizes (a page's weight is counted from its length, so a
 * 16 MiB page is one repeated character, cheap to make): the bytes the kept pages weigh and the viewer and context
 * pairs kept at once. Either bound reached empties every viewer's texts, and then nothing of theirs is counted.
 */

let fixture: ReturnType<typeof temporaryStore>;
let store: SocialStore;

beforeAll(() => {
  fixture = temporaryStore('status-texts');
  store = fixture.store;
});

afterAll(() => fixture?.remove());

const newTexts = () =>
  new StatusTexts(store, new SocialUrls('texts.example'), new FilterService(store, new SocialEvents()));

/** The cache reads nothing of a row but its id. */
const row = (id: string) => ({ id }) as StatusRow;

const NOW = 0;
const UNTIL = 1;

/** What a page of `chars` characters holding one status weighs (the class's count: 2 bytes a unit, 200 an entry). */
const weightOf = (chars: number) => 2 * chars + 200;
const charsFor = (weight: number) => (weight - 200) / 2;

/** Keeps status `id` as the whole of a page weighing `weight` bytes. */
function keep(cache: StatusTexts, texts: ViewerTexts, id: string, weight: number): void {
  const page = 'x'.repeat(charsFor(weight));
  cache.keepSlices(texts, page, [{ status: row(id), start: 0, end: page.length }], UNTIL);
}

const kept = (cache: StatusTexts, texts: ViewerTexts, id: string) => cache.get(texts, row(id), NOW)?.text;

describe('kept status texts, bounded', () => {
  it('keep pages up to 16 MiB in all, and empty every viewer when the next would pass it', () => {
    const cache = newTexts();
    const alice = cache.of('alice', 'home')!;
    const bob = cache.of('bob', 'public')!;
    keep(cache, alice, 'a', STATUS_TEXT_BYTES / 2);
    keep(cache, bob, 'b', STATUS_TEXT_BYTES / 2);
    // Exactly at the bound: both kept.
    expect(kept(cache, alice, 'a')).toHaveLength(charsFor(STATUS_TEXT_BYTES / 2));
    expect(kept(cache, bob, 'b')).toHaveLength(charsFor(STATUS_TEXT_BYTES / 2));
    keep(cache, alice, 'c', weightOf(1));
    expect(kept(cache, alice, 'a')).toBeUndefined();
    expect(kept(cache, bob, 'b')).toBeUndefined();
    expect(kept(cache, alice, 'c')).toBe('x');
  });

  it('never hold more than the bound, and drop nothing while what is kept and the next page fit', () => {
    const cache = newTexts();
    const viewers = ['a', 'b', 'c', 'd'].map((name) => cache.of(name, 'home')!);
    // Weights from 1 to 6 MiB in a fixed order, spread over the viewers: the bound is reached several times.
    const mib = 1024 * 1024;
    const pages = Array.from({ length: 24 }, (_, i) => ({
      id: `s${i}`,
      texts: viewers[i % 4],
      weight: ((i * 7) % 6) * mib + mib,
    }));
    const live = () => pages.filter((p) => kept(cache, p.texts, p.id) !== undefined);
    const weighs = (list: typeof pages) => list.reduce((sum, p) => sum + p.weight, 0);
    let emptied = 0;
    for (const page of pages) {
      const before = live();
      keep(cache, page.texts, page.id, page.weight);
      const after = live();
      expect(weighs(after)).toBeLessThanOrEqual(STATUS_TEXT_BYTES);
      expect(after).toContain(page);
      if (weighs(before) + page.weight <= STATUS_TEXT_BYTES) expect(after).toEqual([...before, page]);
      else {
        expect(after).toEqual([page]);
        emptied++;
      }
    }
    expect(emptied).toBeGreaterThanOrEqual(3);
  });

  it(`empty every viewer's texts at ${STATUS_TEXT_VIEWERS} viewers, and count none of their bytes after`, () => {
    const cache = newTexts();
    // The viewers' pages weigh 90 % of the byte bound together.
    const each = Math.floor((0.9 * STATUS_TEXT_BYTES) / STATUS_TEXT_VIEWERS / 2) * 2;
    for (let i = 0; i < STATUS_TEXT_VIEWERS; i++) keep(cache, cache.of(`viewer${i}`, 'home')!, `s${i}`, each);
    expect(kept(cache, cache.of('viewer0', 'home')!, 's0')).toHaveLength(charsFor(each));
    expect(
      kept(cache, cache.of(`viewer${STATUS_TEXT_VIEWERS - 1}`, 'home')!, `s${STATUS_TEXT_VIEWERS - 1}`),
    ).toBeDefined();

    // One viewer more: everyone's texts go, and so does their weight, so the newcomer's pages are all kept
    // up to the whole byte bound (counted, the emptied pages would have pushed it past the bound at once).
    const newcomer = cache.of('newcomer', 'home')!;
    keep(cache, newcomer, 'first', weightOf(1));
    keep(cache, newcomer, 'second', STATUS_TEXT_BYTES / 4);
    expect(kept(cache, newcomer, 'first')).toBe('x');
    expect(kept(cache, newcomer, 'second')).toHaveLength(charsFor(STATUS_TEXT_BYTES / 4));
    expect(kept(cache, cache.of('viewer0', 'home')!, 's0')).toBeUndefined();
    expect(
      kept(cache, cache.of(`viewer${STATUS_TEXT_VIEWERS - 1}`, 'home')!, `s${STATUS_TEXT_VIEWERS - 1}`),
    ).toBeUndefined();
  });
});

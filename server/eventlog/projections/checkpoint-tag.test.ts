import { describe, expect, it } from 'vitest';
import { parseTag, tagJson } from './checkpoint-tag.ts';

/**
 * Checkpoints KurrentDB wrote (a store brought home with `homeport eventlog replicate`) are read by their
 * position: its event-type index reader (`fromAll().when({A…})` while `$by_event_type` runs) adds `$s`, the
 * `$et-` stream numbers, beside `$c`/`$p`; Homeport reads the log instead, so the position is what it resumes from.
 */
describe('checkpoint tags', () => {
  it('reads an event-type index checkpoint of KurrentDB by its position', () => {
    const parsed = parseTag('{"$v":"7:-1:2:4","$c":81920,"$p":81920,"$s":{"$et-OrderPlaced":41,"$et-OrderPaid":12}}');
    expect(parsed.tag).toEqual({ kind: 'position', commitPosition: 81920, preparePosition: 81920 });
    expect(parsed.version).toEqual({ id: 7, epoch: -1, version: 2 });
  });

  it('writes $c and $p only for a position, $s for streams', () => {
    const version = { id: 3, epoch: -1, version: 1 };
    expect(JSON.parse(tagJson({ kind: 'position', commitPosition: 10, preparePosition: 9 }, version))).toEqual({
      $v: '3:-1:1:4',
      $c: 10,
      $p: 9,
    });
    expect(JSON.parse(tagJson({ kind: 'streams', streams: { 'a-1': 4 } }))).toEqual({ $s: { 'a-1': 4 } });
  });
});

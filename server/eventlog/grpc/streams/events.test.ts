import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../store/index.ts';
import { readEventResp, sharedReadEventResp } from './events.ts';

const recorded = (commitPosition: number): RecordedEvent => ({
  streamId: 'orders',
  eventNumber: 3,
  eventId: '0b6c8a5e-0c5a-4c1e-9d3e-2f6f3c2a1b00',
  eventType: 'OrderPlaced',
  isJson: true,
  data: Buffer.from('{"n":1}'),
  metadata: Buffer.from('{}'),
  created: 1_700_000_000_000,
  commitPosition,
  preparePosition: commitPosition,
});

describe('sharedReadEventResp', () => {
  it('encodes a live event once per id form and hands every subscriber the same bytes readEventResp would', () => {
    const entry = { event: recorded(42) };
    const first = sharedReadEventResp(entry, false, 42);
    expect(sharedReadEventResp(entry, false, 42)).toBe(first);
    expect(first.equals(readEventResp(entry, false, 42))).toBe(true);
    const structured = sharedReadEventResp(entry, true, 42);
    expect(structured).not.toBe(first);
    expect(structured.equals(readEventResp(entry, true, 42))).toBe(true);
  });

  it('encodes again for another position or another event', () => {
    const entry = { event: recorded(42) };
    const at42 = sharedReadEventResp(entry, false, 42);
    const bare = sharedReadEventResp(entry, false);
    expect(bare.equals(readEventResp(entry, false))).toBe(true);
    expect(sharedReadEventResp(entry, false, 7).equals(readEventResp(entry, false, 7))).toBe(true);
    expect(sharedReadEventResp({ event: recorded(42) }, false, 42)).not.toBe(at42);
  });
});

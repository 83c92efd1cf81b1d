import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../store/types.ts';
import { compileEventFilter, describeFilter, InvalidFilterError } from './filter.ts';

const event = (streamId: string, eventType: string) => ({ streamId, eventType }) as RecordedEvent;

describe('subscription filters', () => {
  it('prefix: any of the prefixes, on stream id or event type', () => {
    const byType = compileEventFilter({ context: 'EventType', type: 'Prefix', data: ['order', 'inv'] });
    expect(byType(event('x', 'orderPlaced'))).toBe(true);
    expect(byType(event('order-1', 'invoiceSent'))).toBe(true);
    expect(byType(event('order-1', 'shipped'))).toBe(false);
    const byStream = compileEventFilter({ context: 'StreamId', type: 'Prefix', data: ['order-'] });
    expect(byStream(event('order-1', 'x'))).toBe(true);
    expect(byStream(event('orders', 'x'))).toBe(false);
  });

  it('regex: first pattern only, matching anywhere', () => {
    const f = compileEventFilter({ context: 'EventType', type: 'Regex', data: ['^[^\\$]', 'ignored'] });
    expect(f(event('s', 'Thing'))).toBe(true);
    expect(f(event('s', '$metadata'))).toBe(false);
    expect(compileEventFilter({ context: 'StreamId', type: 'Regex', data: ['-\\d+'] })(event('order-12', 'x'))).toBe(
      true,
    );
    expect(() => compileEventFilter({ context: 'StreamId', type: 'Regex', data: ['('] })).toThrow(InvalidFilterError);
  });

  it('matches in linear time: a catastrophic pattern over crafted names answers at once (a backtracking engine would not finish)', () => {
    const evil = compileEventFilter({ context: 'StreamId', type: 'Regex', data: ['^(a+)+$'] });
    const crafted = `${'a'.repeat(40)}!`;
    for (let i = 0; i < 100; i++) expect(evil(event(crafted, 'x'))).toBe(false);
    expect(evil(event('aaaa', 'x'))).toBe(true);
    // Backreferences need backtracking: refused as an invalid filter, with the reason.
    expect(() => compileEventFilter({ context: 'StreamId', type: 'Regex', data: ['(a)\\1'] })).toThrow(
      /invalid filter regex/,
    );
  });

  it('no filter or no patterns lets everything through', () => {
    expect(compileEventFilter(null)(event('$x', '$y'))).toBe(true);
    expect(compileEventFilter({ context: 'StreamId', type: 'Prefix', data: [] })(event('a', 'b'))).toBe(true);
    expect(describeFilter({ context: 'EventType', type: 'Prefix', data: ['a', 'b'] })).toBe(
      'EventType prefix "a", "b"',
    );
    expect(describeFilter(null)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { LruCache } from './cache.ts';

describe('LruCache', () => {
  it('forgets the least recently used entry past its entry bound', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.size]).toEqual([1, 3, 2]);
  });

  it('keeps the bytes it holds under its byte bound and refuses an entry larger than the bound', () => {
    const cache = new LruCache<string, string>(100, { max: 10, weigh: (v) => v.length });
    cache.set('a', 'xxxx');
    cache.set('b', 'yyyy');
    cache.set('c', 'zzzz');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.weight).toBe(8);
    cache.set('b', 'y');
    expect(cache.weight).toBe(5);
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.weight).toBe(5);
  });
});

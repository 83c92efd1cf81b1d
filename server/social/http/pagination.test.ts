import { describe, expect, it } from 'vitest';
import { SocialUrls } from '../urls.ts';
import { linkHeader } from './pagination.ts';

/** The Link header as URLSearchParams writes every query (the way before plain queries were written directly). */
function throughSearchParams(url: string, urls: SocialUrls, cursors: string[], limit: number): string | null {
  const [path, query = ''] = url.split(/\?(.*)/s);
  const link = (name: string, value: string) => {
    const search = new URLSearchParams(query);
    for (const k of ['max_id', 'since_id', 'min_id']) search.delete(k);
    search.set(name, value);
    return `<${urls.absolute(path)}?${search.toString()}>`;
  };
  const parts: string[] = [];
  if (cursors.length > 0 && cursors.length >= limit)
    parts.push(`${link('max_id', cursors[cursors.length - 1])}; rel="next"`);
  if (cursors.length > 0) parts.push(`${link('min_id', cursors[0])}; rel="prev"`);
  return parts.length ? parts.join(', ') : null;
}

describe('Link headers', () => {
  it('write the request’s other parameters back exactly as URLSearchParams does', () => {
    const urls = new SocialUrls('example.test');
    const queries = [
      '',
      'limit=20',
      'limit=2&max_id=9&since_id=3&min_id=1',
      'max_id=9',
      'bench=17',
      'only_media=true&local=1&max_id=5&any[]=a',
      'any%5B%5D=x&limit=2',
      'q=a+b&limit=2',
      'q=a%20b',
      'flag&limit=2',
      'a=1&&b=2',
      'a==1',
      'a=é',
      'x*y-z.w_v=1*2',
      'max_id=1&max_id=2&limit=3',
      'MAX_ID=4',
      '&',
      '=1',
    ];
    for (const query of queries)
      for (const cursors of [[], ['30', '20', '10'], ['10']]) {
        const url = `/api/v1/timelines/tag/x${query === '' ? '' : `?${query}`}`;
        expect(linkHeader(url, urls, cursors, { limit: 3 }), url).toBe(throughSearchParams(url, urls, cursors, 3));
      }
  });
});

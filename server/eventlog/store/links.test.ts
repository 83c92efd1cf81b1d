import { describe, expect, it } from 'vitest';
import { parseLink } from './links.ts';

const data = (text: string) => new TextEncoder().encode(text);

describe('parseLink (the one reading of `$>` data)', () => {
  it('reads N@stream, keeping everything after the first @ as the stream', () => {
    expect(parseLink(data('3@orders-1'))).toEqual({ kind: 'link', streamId: 'orders-1', eventNumber: 3 });
    expect(parseLink(data(' 7 @user@example'))).toEqual({ kind: 'link', streamId: 'user@example', eventNumber: 7 });
    expect(parseLink(data('-1@s'))).toEqual({ kind: 'link', streamId: 's', eventNumber: -1 });
  });

  it('tells data that is no link from a link that points nowhere', () => {
    for (const text of ['', 'hello', 'x@stream', '1.5@s', '{"a":1}'])
      expect(parseLink(data(text))).toEqual({ kind: 'not-a-link' });
    for (const text of ['4@', '-2@s', '99999999999999999999@s'])
      expect(parseLink(data(text))).toEqual({ kind: 'broken' });
  });
});

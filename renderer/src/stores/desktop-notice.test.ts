import { describe, expect, it } from 'vitest';
import { desktopNotice } from './desktop-notice.ts';

describe('desktop notices', () => {
  it('names who did what, with the post as plain text', () => {
    const account = { display_name: 'Bob', username: 'bob', acct: 'bob@b.test' };
    expect(
      desktopNotice({
        type: 'favourite',
        account,
        status: { content: '<p>Fish &amp; chips<br>at <a href="x">#noon</a></p><p>ok</p>' },
      }),
    ).toEqual(['Bob favourited your post', 'Fish & chips at #noon ok']);
    expect(desktopNotice({ type: 'follow', account: { ...account, display_name: '' } })).toEqual([
      'bob followed you',
      '@bob@b.test',
    ]);
    expect(desktopNotice({ type: 'something_new', account, status: null })[0]).toBe('Bob something_new');
  });
});

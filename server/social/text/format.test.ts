import { describe, expect, it } from 'vitest';
import { formatPlainText, graphemeLength, htmlToText } from './format.ts';

describe('plain text to HTML', () => {
  const options = {
    mentionUrl: (username: string, domain: string | null) =>
      username === 'bob' && domain === null ? 'http://h.example/@bob' : null,
    tagUrl: (name: string) => `http://h.example/tags/${name}`,
  };

  it('escapes, makes paragraphs and line breaks, links URLs, known mentions and hashtags', () => {
    const html = formatPlainText(
      'Hi <b>@bob</b> & @nobody!\nSee https://example.org/a_very_long_path/that/goes/on/and/on.\n\n#tag1 c#notag',
      options,
    );
    expect(html).toBe(
      '<p>Hi &lt;b&gt;<span class="h-card" translate="no"><a href="http://h.example/@bob" class="u-url mention">@<span>bob</span></a></span>&lt;/b&gt; &amp; @nobody!<br />' +
        'See <a href="https://example.org/a_very_long_path/that/goes/on/and/on" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="ellipsis">example.org/a_very_long_path/t</span><span class="invisible">hat/goes/on/and/on</span></a>.</p>' +
        '<p><a href="http://h.example/tags/tag1" class="mention hashtag" rel="tag">#<span>tag1</span></a> c#notag</p>',
    );
    expect(formatPlainText('  \n ')).toBe('');
  });

  it('reads text back out of HTML', () => {
    expect(htmlToText('<p>a &amp; b<br />c</p><p>d</p>')).toBe('a & b\nc\n\nd');
  });
});

describe('length in user-perceived characters', () => {
  const segmented = (text: string) =>
    [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;

  it('counts ASCII text (CR LF as one) as the grapheme segmenter does', () => {
    for (const text of ['', 'hello world', 'a\r\nb\n\rc\r\r\n', '\t\x00\x1b[0m ~', '\r\n\r\n'])
      expect(graphemeLength(text)).toBe(segmented(text));
    expect(graphemeLength('a\r\nb')).toBe(3);
  });

  it('counts emoji sequences and combining marks as one character each', () => {
    expect(graphemeLength('👩‍👩‍👧 é e\u0301 🇫🇷')).toBe(7);
  });
});

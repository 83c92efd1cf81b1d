/*
 * Plain text → the sanitized HTML subset Mastodon clients expect (p, br, a, span): URLs become links,
 * @mentions of known accounts become h-card links, #hashtags link to the tag page.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface FormatOptions {
  /** URL of a mentioned account's profile, or null when the account is unknown (the text stays plain). */
  mentionUrl?: (username: string, domain: string | null) => string | null;
  tagUrl?: (name: string) => string;
}

const TOKEN =
  /(https?:\/\/[^\s<>"'`]+)|((?<![\w/@])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_])?)(?:@([a-z0-9.-]+\.[a-z0-9-]+|localhost)(?::\d+)?)?)|((?<![\w&/])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*))/giu;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;

function linkUrl(url: string): string {
  const display = url.replace(/^https?:\/\/(www\.)?/, '');
  const shown =
    display.length > 30
      ? `${escapeHtml(display.slice(0, 30))}</span><span class="invisible">${escapeHtml(display.slice(30))}`
      : escapeHtml(display);
  const ellipsis = display.length > 30 ? ' class="ellipsis"' : '';
  const prefix = url.slice(0, url.length - display.length);
  return `<a href="${escapeHtml(url)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">${escapeHtml(prefix)}</span><span${ellipsis}>${shown}</span></a>`;
}

export type TextToken =
  | { kind: 'text'; text: string }
  | { kind: 'url'; url: string; trailing: string }
  | { kind: 'mention'; text: string; username: string; domain: string | null }
  | { kind: 'hashtag'; text: string; name: string };

/** Splits text into plain runs, URLs, @mentions and #hashtags (the same recognition the HTML uses). */
export function tokenize(text: string): TextToken[] {
  const tokens: TextToken[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const index = m.index ?? 0;
    if (index > last) tokens.push({ kind: 'text', text: text.slice(last, index) });
    if (m[1]) {
      const trailing = m[0].match(TRAILING_PUNCTUATION)?.[0] ?? '';
      tokens.push({ kind: 'url', url: m[0].slice(0, m[0].length - trailing.length), trailing });
    } else if (m[2]) {
      tokens.push({ kind: 'mention', text: m[2], username: m[3], domain: m[4] ? m[4].toLowerCase() : null });
    } else {
      tokens.push({ kind: 'hashtag', text: m[5], name: m[6] });
    }
    last = index + m[0].length;
  }
  if (last < text.length) tokens.push({ kind: 'text', text: text.slice(last) });
  return tokens;
}

/** One line of text with links, mentions and hashtags turned into HTML. */
export function formatInline(text: string, options: FormatOptions = {}): string {
  let out = '';
  for (const token of tokenize(text)) {
    if (token.kind === 'text') out += escapeHtml(token.text);
    else if (token.kind === 'url') out += linkUrl(token.url) + escapeHtml(token.trailing);
    else if (token.kind === 'mention') {
      const href = options.mentionUrl?.(token.username, token.domain) ?? null;
      out += href
        ? `<span class="h-card" translate="no"><a href="${escapeHtml(href)}" class="u-url mention">@<span>${escapeHtml(token.username)}</span></a></span>`
        : escapeHtml(token.text);
    } else if (options.tagUrl) {
      out += `<a href="${escapeHtml(options.tagUrl(token.name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(token.name)}</span></a>`;
    } else out += escapeHtml(token.text);
  }
  return out;
}

/** Paragraphs split on blank lines, single line breaks as <br />. Empty text gives "". */
export function formatPlainText(text: string, options: FormatOptions = {}): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (!normalized) return '';
  return normalized
    .split(/\n{2,}/)
    .map(
      (para) =>
        `<p>${para
          .split('\n')
          .map((line) => formatInline(line, options))
          .join('<br />')}</p>`,
    )
    .join('');
}

/** The visible text of HTML (for fields of remote accounts and search), without tags. */
export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Length of a status text as Mastodon counts it: user-perceived characters, every URL as
 * `urlLength` characters, and a remote mention only by its username part.
 */
export function countableLength(text: string, urlLength: number): number {
  let n = 0;
  for (const token of tokenize(text)) {
    if (token.kind === 'url') n += urlLength + graphemeLength(token.trailing);
    else if (token.kind === 'mention') n += graphemeLength(`@${token.username}`);
    else n += graphemeLength(token.text);
  }
  return n;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

export function graphemeLength(text: string): number {
  // ASCII (most posts): every character is a grapheme of its own but CR LF, which is one (UAX #29, GB3).
  // Segmenting costs a few microseconds per word.
  if (isAscii(text)) return text.length - (text.match(/\r\n/g)?.length ?? 0);
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
}

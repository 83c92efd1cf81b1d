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

const TOKEN = /(https?:\/\/[^\s<>"'`]+)|((?<![\w/@])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_])?)(?:@([a-z0-9.-]+\.[a-z0-9-]+|localhost)(?::\d+)?)?)|((?<![\w&/])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*))/giu;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;

function linkUrl(url: string): string {
  const display = url.replace(/^https?:\/\/(www\.)?/, '');
  const shown = display.length > 30 ? `${escapeHtml(display.slice(0, 30))}</span><span class="invisible">${escapeHtml(display.slice(30))}` : escapeHtml(display);
  const ellipsis = display.length > 30 ? ' class="ellipsis"' : '';
  const prefix = url.slice(0, url.length - display.length);
  return `<a href="${escapeHtml(url)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">${escapeHtml(prefix)}</span><span${ellipsis}>${shown}</span></a>`;
}

/** One line of text with links, mentions and hashtags turned into HTML. */
export function formatInline(text: string, options: FormatOptions = {}): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const index = m.index ?? 0;
    out += escapeHtml(text.slice(last, index));
    let token = m[0];
    if (m[1]) {
      const trailing = token.match(TRAILING_PUNCTUATION)?.[0] ?? '';
      const url = token.slice(0, token.length - trailing.length);
      out += linkUrl(url) + escapeHtml(trailing);
    } else if (m[2]) {
      const username = m[3];
      const domain = m[4] ? m[4].toLowerCase() : null;
      const href = options.mentionUrl?.(username, domain) ?? null;
      token = m[2];
      out += href ? `<span class="h-card" translate="no"><a href="${escapeHtml(href)}" class="u-url mention">@<span>${escapeHtml(username)}</span></a></span>` : escapeHtml(token);
    } else if (m[5] && options.tagUrl) {
      const name = m[6];
      out += `<a href="${escapeHtml(options.tagUrl(name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(name)}</span></a>`;
    } else {
      out += escapeHtml(token);
    }
    last = index + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

/** Paragraphs split on blank lines, single line breaks as <br />. Empty text gives "". */
export function formatPlainText(text: string, options: FormatOptions = {}): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (!normalized) return '';
  return normalized
    .split(/\n{2,}/)
    .map((para) => `<p>${para.split('\n').map((line) => formatInline(line, options)).join('<br />')}</p>`)
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

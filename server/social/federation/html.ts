import sanitizeHtml from 'sanitize-html';

/**
 * Remote HTML → the subset Mastodon clients render (Mastodon's own "relaxed" sanitizer): paragraphs, line
 * breaks, links (http/https only, opened safely), inline emphasis, lists, quotes and code. Everything else
 * (scripts, styles, images, iframes, event handlers) is removed; unknown tags keep their text.
 */
export function sanitizeRemoteHtml(html: string): string {
  return sanitizeRemoteHtmlWith(sanitizeHtml, html);
}

/**
 * sanitizeRemoteHtml with the sanitize-html given: self-contained, the verifier's worker evaluates its source (it
 * sanitises the plain Creates it reads, see inbox-plain-create.ts).
 */
export function sanitizeRemoteHtmlWith(sanitize: typeof sanitizeHtml, html: string): string {
  // Classes Mastodon keeps on remote HTML (mentions, hashtags, its link shortening).
  const KEPT_CLASSES = ['h-card', 'u-url', 'mention', 'hashtag', 'invisible', 'ellipsis', 'quote-inline'];
  return sanitize(html, {
    allowedTags: [
      'p',
      'br',
      'span',
      'a',
      'del',
      's',
      'pre',
      'code',
      'em',
      'strong',
      'b',
      'i',
      'u',
      'ul',
      'ol',
      'li',
      'blockquote',
      'h1',
      'h2',
      'h3',
      'h4',
      'h5',
      'h6',
    ],
    allowedAttributes: {
      a: ['href', 'rel', 'class', 'target', 'translate'],
      span: ['class', 'translate'],
      p: ['class'],
      ol: ['start', 'reversed'],
      li: ['value'],
    },
    // Mastodon's quote fallback is a paragraph (`<p class="quote-inline">RE: …`): clients hide it beside the quote.
    allowedClasses: { a: KEPT_CLASSES, span: KEPT_CLASSES, p: ['quote-inline'] },
    allowedSchemes: ['http', 'https'],
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener', target: '_blank' } }),
    },
  });
}

/** Plain text of an HTML fragment (display names and field names must not carry markup). */
export function stripHtml(html: string): string {
  // Most posts have no content warning: sanitize-html would build a parser for nothing.
  if (html === '') return '';
  return sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} })
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

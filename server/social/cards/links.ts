import { Parser } from 'htmlparser2';

/*
 * Which link of a post gets a preview card, as Mastodon's FetchLinkCardService chooses: the first http(s)
 * link of its HTML that is not a mention (class u-url or h-card, or the address of an account it mentions),
 * not a hashtag (rel=tag), not inside a quote's fallback paragraph (.quote-inline), not a post this server
 * knows (a quote or reference, shown as such), and not an address on this server.
 */

/** Mastodon keeps card URLs within what its unique index can hold. */
const MAX_LINK_LENGTH = 2_692;

export interface LinkContext {
  /** This server's host (with its port, if any): its own addresses never get cards. */
  localHost: string;
  /** Addresses (uri and url) of the accounts the post mentions. */
  mentionedAddresses: ReadonlySet<string>;
  /** Whether an address is a post this server has (its uri or url). */
  isKnownStatus(address: string): boolean;
}

interface Anchor {
  href: string;
  classes: string[];
  rel: string[];
  /** Inside an element with class quote-inline. */
  inQuoteFallback: boolean;
}

function anchorsOf(html: string): Anchor[] {
  const anchors: Anchor[] = [];
  // Each open element: whether it (or an ancestor) is a quote fallback.
  const quoteStack: boolean[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const classes = (attrs.class ?? '').split(/\s+/).filter(Boolean);
        const inQuote = (quoteStack.at(-1) ?? false) || classes.includes('quote-inline');
        quoteStack.push(inQuote);
        if (name === 'a' && attrs.href)
          anchors.push({
            href: attrs.href.trim(),
            classes,
            rel: (attrs.rel ?? '').split(/\s+/).filter(Boolean),
            inQuoteFallback: inQuote,
          });
      },
      onclosetag() {
        quoteStack.pop();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return anchors;
}

/** A mention, a hashtag or a quote's fallback by its markup alone. */
function markedNotCardable(anchor: Anchor): boolean {
  return (
    anchor.inQuoteFallback ||
    anchor.rel.includes('tag') ||
    anchor.classes.some((c) => c === 'u-url' || c === 'h-card' || c === 'mention' || c === 'hashtag')
  );
}

function skipped(anchor: Anchor, context: LinkContext): boolean {
  return markedNotCardable(anchor) || context.mentionedAddresses.has(anchor.href);
}

/** The normalized http(s) address of a link, or null when it can have no card. */
function cardable(href: string, context: LinkContext): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname || url.host === context.localHost) return null;
  if (url.href.length > MAX_LINK_LENGTH) return null;
  if (context.isKnownStatus(href) || context.isKnownStatus(url.href)) return null;
  return url.href;
}

/**
 * Whether a post's HTML has a link that may get a card, judged by its markup alone (no lookup): false when its
 * only links are mentions, hashtags, quote fallbacks or not http(s), as most posts' are.
 */
export function mayHaveCardLink(html: string): boolean {
  if (!html.includes('<a')) return false;
  return anchorsOf(html).some((a) => !markedNotCardable(a) && /^https?:\/\//i.test(a.href));
}

/** The link of a post's HTML that gets a card, or null. */
export function cardLinkOf(html: string, context: LinkContext): string | null {
  if (!html.includes('<a')) return null;
  for (const anchor of anchorsOf(html)) {
    if (skipped(anchor, context)) continue;
    const url = cardable(anchor.href, context);
    if (url) return url;
  }
  return null;
}

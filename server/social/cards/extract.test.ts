import { describe, expect, it } from 'vitest';
import { declaredCharset, decodePage, extractLinkDetails, MAX_PAGE_DEPTH, scanPage } from './extract.ts';
import { cardLinkOf, type LinkContext } from './links.ts';

/*
 * The two readings behind a card, without a network: which link of a post's HTML gets a card (Mastodon's
 * FetchLinkCardService#parse_urls), and what a page says about itself (LinkDetailsExtractor).
 */

const context: LinkContext = {
  localHost: 'social.example',
  mentionedAddresses: new Set(['https://far.example/users/bob']),
  isKnownStatus: (address) => address === 'https://far.example/users/bob/statuses/1',
};

describe('the link that gets a card', () => {
  it('skips mentions, hashtags, quote fallbacks, known posts, local addresses and other schemes', () => {
    const html =
      '<p><span class="h-card"><a href="https://far.example/@carol" class="u-url mention">@carol</a></span> ' +
      '<a href="https://far.example/users/bob">bob without classes</a> ' +
      '<a href="https://far.example/tags/ducks" class="mention hashtag" rel="tag">#ducks</a> ' +
      '<a href="https://far.example/tags/geese" rel="nofollow tag">#geese</a> ' +
      '<a href="https://social.example/@alice/1">ours</a> ' +
      '<a href="https://far.example/users/bob/statuses/1">a post we know</a> ' +
      '<a href="mailto:x@far.example">mail</a> <a href="not a url">broken</a></p>' +
      '<p class="quote-inline">RE: <a href="https://far.example/@bob/2"><span>far.example/@bob/2</span></a></p>' +
      '<p>read <a href="https://news.example/story?id=1#top">this</a> and <a href="https://other.example/">that</a></p>';
    expect(cardLinkOf(html, context)).toBe('https://news.example/story?id=1#top');
  });

  it('gives null when nothing is left, and normalizes what it gives', () => {
    expect(cardLinkOf('<p>no links at all</p>', context)).toBeNull();
    expect(cardLinkOf('<p><a href="https://far.example/tags/x" rel="tag">#x</a></p>', context)).toBeNull();
    expect(cardLinkOf('<p><a href="HTTPS://News.Example:443/a b">x</a></p>', context)).toBe(
      'https://news.example/a%20b',
    );
  });
});

describe('what a page says about itself', () => {
  it('JSON-LD comes before OpenGraph, and OpenGraph before <title> and <meta name=description>', () => {
    const html = `<html lang="de"><head><title>Plain title</title><meta name="description" content="plain description">
      <meta property="og:title" content="OG title"><meta property="og:image" content="//cdn.news.example/i.jpg">
      <script type="application/ld+json">
      /* <![CDATA[ */
      {"@type":"NewsArticle","headline":"LD headline","author":{"name":"Ann","url":"/ann"},
        "publisher":{"name":"News Co"},"datePublished":"2024-01-02T03:04:05Z","inLanguage":"fr-FR"}
      /* ]]> */
      </script></head></html>`;
    const details = extractLinkDetails(html, 'https://news.example/story');
    expect(details).toMatchObject({
      title: 'LD headline',
      description: 'plain description',
      imageUrl: 'https://cdn.news.example/i.jpg',
      providerName: 'News Co',
      authorName: 'Ann',
      authorUrl: 'https://news.example/ann',
      language: 'fr',
      publishedAt: Date.UTC(2024, 0, 2, 3, 4, 5),
      type: 'link',
      linkType: 'article',
      html: '',
    });
  });

  it('a page is an article when its og:type or its JSON-LD says so (only articles trend, as Mastodon)', () => {
    const page = (head: string) =>
      extractLinkDetails(`<head><title>T</title>${head}</head>`, 'https://news.example/a').linkType;
    expect(page('<meta property="og:type" content="article">')).toBe('article');
    expect(page('<meta property="og:type" content="website">')).toBe('unknown');
    expect(page('<script type="application/ld+json">{"@type":"WebPage","headline":"H"}</script>')).toBe('unknown');
    expect(page('')).toBe('unknown');
  });

  it('a player makes a video card with an iframe we write ourselves; other-host canonicals and bad values are ignored', () => {
    const html = `<head><meta name="twitter:player" content='https://video.example/embed/1?a=1&amp;b="x"'>
      <meta name="twitter:player:width" content="640"><meta name="twitter:player:height" content="nonsense">
      <meta property="og:title" content="Clip"><link rel="canonical" href="https://elsewhere.example/clip">
      <meta property="og:image" content="javascript:alert(1)"><meta property="article:published_time" content="yesterday">
      <meta property="og:locale" content="xx_YY"></head>`;
    const details = extractLinkDetails(html, 'https://video.example/watch/1');
    expect(details.type).toBe('video');
    expect(details.html).toBe(
      '<iframe src="https://video.example/embed/1?a=1&amp;b=%22x%22" width="640" height="0" allowfullscreen="true" allowtransparency="true" scrolling="no" frameborder="0"></iframe>',
    );
    expect(details.canonicalUrl).toBe('https://video.example/watch/1');
    expect(details.imageUrl).toBeNull();
    expect(details.publishedAt).toBeNull();
    expect(details.language).toBeNull();
  });

  it('a player on the local network, or not on https, is no player: clients would embed it', () => {
    for (const address of [
      'http://192.168.1.1/admin',
      'https://127.0.0.1:8080/',
      'https://router/',
      'http://video.example/e/1',
    ]) {
      const html = `<head><meta property="og:title" content="Clip"><meta name="twitter:player" content="${address}">
        <meta name="twitter:player:stream" content="${address}"></head>`;
      expect(extractLinkDetails(html, 'https://video.example/watch/1'), address).toMatchObject({
        type: 'link',
        html: '',
        embedUrl: '',
      });
    }
  });

  it('reads pages in the charset they declare, and never throws on bad bytes or labels', () => {
    const latin1 = Buffer.from('<meta charset="iso-8859-1"><title>Caf\xe9</title>', 'latin1');
    expect(declaredCharset(latin1)).toBe('iso-8859-1');
    expect(extractLinkDetails(decodePage(latin1, null), 'https://x.example/').title).toBe('Café');
    expect(decodePage(Buffer.from([0xff, 0xfe, 0x41]), 'no-such-charset')).toContain('A');
    expect(extractLinkDetails('<<<>>><title>broken <b>markup', 'https://x.example/').title).toBe('broken <b>markup');
  });

  it('stops reading where elements nest past MAX_PAGE_DEPTH, keeping what came before; ordinary pages are read whole', () => {
    const head = '<html><head><title>Deep</title><meta property="og:title" content="Deep nesting"></head><body>';
    const deep = head + '<div>'.repeat(200_000) + '<script type="application/ld+json">{"@type":"WebPage"}</script>';
    const parts = scanPage(deep);
    // Stopped within a piece of where the depth ran out, not after the megabyte (each <div> is 5 characters).
    expect(parts.stoppedAt).not.toBeNull();
    expect(parts.stoppedAt!).toBeGreaterThan(head.length + 5 * MAX_PAGE_DEPTH - 10);
    expect(parts.stoppedAt!).toBeLessThan(64 * 1024);
    expect(parts.jsonLd).toEqual([]);
    expect(extractLinkDetails(deep, 'https://x.example/').title).toBe('Deep nesting');
    // Nesting that closes again, however long the page, is no reason to stop.
    const wide =
      head +
      '<div><p><span>text</span></p></div>'.repeat(20_000) +
      '<script type="application/ld+json">{"@type":"WebPage","headline":"Found"}</script>';
    expect(scanPage(wide).stoppedAt).toBeNull();
    expect(extractLinkDetails(wide, 'https://x.example/').title).toBe('Found');
  });
});

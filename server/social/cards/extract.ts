import { Parser } from 'htmlparser2';
import { isLanguageCode } from '../text/index.ts';
import { isJsonRecord as isRecord, type JsonRecord as Json } from '../json-record.ts';
import { isPublicMediaUrl, STRICT_REMOTE_MEDIA } from '../entities/index.ts';

/*
 * What a web page says about itself, read as Mastodon's LinkDetailsExtractor reads it: JSON-LD (NewsArticle
 * or WebPage) first, then OpenGraph and Twitter meta tags, then <title>, <meta name=description> and
 * <html lang>. Addresses are made absolute against the page and kept only when they are http(s).
 */

/** The attributes of a card that come from the page (the image is fetched separately from `imageUrl`). */
export interface LinkDetails {
  /** The page's own address for itself when on the same host (<link rel=canonical>, og:url), else the fetched one. */
  canonicalUrl: string;
  title: string;
  description: string;
  type: 'link' | 'video';
  /** Whether the page calls itself an article (og:type article, or JSON-LD NewsArticle): only articles trend. */
  linkType: 'article' | 'unknown';
  /** An iframe of the page's player (twitter:player), made by us from its checked address; '' for links. */
  html: string;
  /** The player's size (a link card's size is its image's, known once the image is fetched). */
  width: number;
  height: number;
  imageUrl: string | null;
  imageDescription: string;
  providerName: string;
  providerUrl: string;
  authorName: string;
  authorUrl: string;
  embedUrl: string;
  language: string | null;
  publishedAt: number | null;
}

/** Cards carry text to every client showing the post: overly long values are cut. */
const MAX_TITLE = 1_000;
const MAX_DESCRIPTION = 5_000;
const MAX_NAME = 500;
const MAX_URL = 2_000;
/** JSON-LD types Mastodon reads. */
const STRUCTURED_TYPES = new Set(['NewsArticle', 'WebPage']);

interface Meta {
  property: string | null;
  name: string | null;
  content: string;
}

interface PageParts {
  metas: Meta[];
  title: string | null;
  links: { rel: string; href: string }[];
  lang: string | null;
  jsonLd: string[];
}

/**
 * Elements open at once, at most, before the page is read no further. htmlparser2 keeps its open elements in an
 * array it shifts at every tag, so a page of nested elements costs the square of its depth (a megabyte of
 * `<div>` took 16 s of the event loop); real pages nest a few dozen deep (Mastodon's HTML5 parser, Nokogiri's
 * Gumbo, gives up at 400), and what a card needs is in the head anyway.
 */
export const MAX_PAGE_DEPTH = 256;
/** The page is given to the parser in pieces, so that reading stops within one piece of where it should. */
const SCAN_CHUNK_CHARS = 16 * 1024;

/**
 * The tags that matter, in one pass of a forgiving HTML parser (no DOM is built): stopped at MAX_PAGE_DEPTH
 * open elements, keeping what came before.
 */
export function scanPage(html: string): PageParts & { stoppedAt: number | null } {
  const parts: PageParts = { metas: [], title: null, links: [], lang: null, jsonLd: [] };
  let text: string[] | null = null;
  let inJsonLd = false;
  let inTitle = false;
  let depth = 0;
  let stopped = false;
  const parser: Parser = new Parser(
    {
      onopentagname() {
        if (++depth > MAX_PAGE_DEPTH && !stopped) {
          stopped = true;
          parser.pause();
        }
      },
      onopentag(name, attrs) {
        if (name === 'meta' && typeof attrs.content === 'string')
          parts.metas.push({ property: attrs.property ?? null, name: attrs.name ?? null, content: attrs.content });
        else if (name === 'link' && attrs.rel && attrs.href) parts.links.push({ rel: attrs.rel, href: attrs.href });
        else if (name === 'html' && attrs.lang && parts.lang === null) parts.lang = attrs.lang;
        else if (name === 'title' && parts.title === null) {
          inTitle = true;
          text = [];
        } else if (name === 'script' && attrs.type?.trim().toLowerCase() === 'application/ld+json') {
          inJsonLd = true;
          text = [];
        }
      },
      ontext(data) {
        text?.push(data);
      },
      onclosetag(name) {
        depth--;
        if (name === 'title' && inTitle) {
          parts.title = text!.join('');
          inTitle = false;
          text = null;
        } else if (name === 'script' && inJsonLd) {
          parts.jsonLd.push(text!.join(''));
          inJsonLd = false;
          text = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  let offset = 0;
  for (; offset < html.length && !stopped; offset += SCAN_CHUNK_CHARS)
    parser.write(html.slice(offset, offset + SCAN_CHUNK_CHARS));
  // A page read to its end closes what it left open (a <title> cut by the byte limit still counts); a page
  // given up on is left as it is: closing its thousands of open elements would cost what the limit saves.
  if (!stopped) parser.end();
  return { ...parts, stoppedAt: stopped ? parser.startIndex : null };
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Some publications wrap their JSON-LD in commented-out CDATA markers. */
const CDATA_JUNK = /^\s*(\/\*\s*<!\[CDATA\[\s*\*\/|\/\/\s*<!\[CDATA\[|\/\*\s*\]\]>\s*\*\/|\/\/\s*\]\]>)\s*$/gm;

/** The first JSON-LD object of a type Mastodon reads; pages with several or broken ones are common. */
function structuredData(scripts: string[]): Json | null {
  for (const script of scripts) {
    try {
      const parsed: unknown = JSON.parse(script.replace(CDATA_JUNK, ''));
      const found = (Array.isArray(parsed) ? parsed : [parsed]).find(
        (o): o is Json => isRecord(o) && typeof o['@type'] === 'string' && STRUCTURED_TYPES.has(o['@type']),
      );
      if (found) return found;
    } catch {
      // not JSON: the next one may be
    }
  }
  return null;
}

function structuredLanguage(data: Json | null): string | null {
  const lang = first(data?.inLanguage);
  if (isRecord(lang)) return text(lang.alternateName) ?? text(lang.name);
  return text(lang);
}

function structuredImage(data: Json | null): string | null {
  const image = first(data?.image);
  return isRecord(image) ? text(image.url) : text(image);
}

/** A language code from "en", "en_US" or "pt-BR" (the region is dropped), when it is one we know. */
function languageOf(value: string | null): string | null {
  if (!value) return null;
  const code = value.trim().split(/[_-]/)[0].toLowerCase();
  return isLanguageCode(code) ? code : null;
}

function dateOf(value: string | null): number | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isFinite(time) ? time : null;
}

function cut(value: string | null, max: number): string {
  return (value ?? '').slice(0, max);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A player's address clients may embed (an iframe loads it on the user's machine): https on a public host. */
function embeddable(url: string | null): string | null {
  return url && isPublicMediaUrl(url, STRICT_REMOTE_MEDIA) ? url : null;
}

function positiveInt(value: string | null): number {
  const n = value === null ? NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) && n > 0 && n < 100_000 ? n : 0;
}

/** Reads a page fetched from `pageUrl` (the address after redirects). */
export function extractLinkDetails(html: string, pageUrl: string): LinkDetails {
  const page = scanPage(html);
  const data = structuredData(page.jsonLd);
  const base = new URL(pageUrl);
  /** `og:…`, `twitter:…`: by property or by name, the first in the page. */
  const tag = (key: string) => text(page.metas.find((m) => m.property === key || m.name === key)?.content);
  const named = (key: string) => text(page.metas.find((m) => m.name === key)?.content);
  const link = (rel: string) => text(page.links.find((l) => l.rel.trim().toLowerCase() === rel)?.href);
  const absolute = (value: string | null, sameHostOnly = false): string | null => {
    if (!value || value === 'null') return null;
    try {
      const url = new URL(value.trim(), base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
      if (sameHostOnly && url.host !== base.host) return null;
      return url.href.length <= MAX_URL ? url.href : null;
    } catch {
      return null;
    }
  };
  const author = first(data?.author);
  const publisher = first(data?.publisher);
  const player = embeddable(absolute(tag('twitter:player')));
  const width = player ? positiveInt(tag('twitter:player:width')) : 0;
  const height = player ? positiveInt(tag('twitter:player:height')) : 0;
  const site = tag('og:site');
  return {
    canonicalUrl: absolute(link('canonical') ?? tag('og:url'), true) ?? base.href,
    title: cut(text(data?.headline) ?? tag('og:title') ?? page.title, MAX_TITLE).trim(),
    description: cut(text(data?.description) ?? tag('og:description') ?? named('description'), MAX_DESCRIPTION),
    type: player ? 'video' : 'link',
    linkType: data?.['@type'] === 'NewsArticle' || tag('og:type') === 'article' ? 'article' : 'unknown',
    html: player
      ? `<iframe src="${escapeAttribute(player)}" width="${width}" height="${height}" allowfullscreen="true" allowtransparency="true" scrolling="no" frameborder="0"></iframe>`
      : '',
    width,
    height,
    imageUrl: absolute(tag('og:image') ?? structuredImage(data)),
    imageDescription: cut(tag('og:image:alt'), MAX_DESCRIPTION),
    providerName: cut((isRecord(publisher) ? text(publisher.name) : null) ?? tag('og:site_name'), MAX_NAME),
    providerUrl: (site ? absolute(/^https?:\/\//i.test(site) ? site : `http://${site}`) : null) ?? '',
    authorName: cut(
      (isRecord(author) ? text(author.name) : null) ??
        tag('og:author') ??
        tag('og:author:username') ??
        tag('author') ??
        tag('article:author'),
      MAX_NAME,
    ),
    authorUrl: absolute(isRecord(author) ? text(author.url) : null) ?? '',
    embedUrl: embeddable(absolute(tag('twitter:player:stream'))) ?? '',
    language: languageOf(structuredLanguage(data) ?? tag('og:locale') ?? page.lang),
    publishedAt: dateOf(text(data?.datePublished) ?? tag('article:published_time')),
  };
}

/** The charset a page declares in its first bytes (<meta charset> or http-equiv), for pages whose headers say none. */
export function declaredCharset(head: Buffer): string | null {
  const start = head.subarray(0, 2048).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i.exec(start)?.[1] ?? null;
}

/** Bytes of a page as text, in its charset when we know it (UTF-8 otherwise), never throwing on bad bytes. */
export function decodePage(body: Buffer, charset: string | null): string {
  for (const label of [charset, declaredCharset(body), 'utf-8']) {
    if (!label) continue;
    try {
      return new TextDecoder(label).decode(body);
    } catch {
      // an unknown charset label: try the next
    }
  }
  return body.toString('utf8');
}

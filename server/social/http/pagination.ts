import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DetailsCollector } from '../errors.ts';
import { isId } from '../ids.ts';
import type { PageQuery } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import { parseParams, requestParams, zInt } from './params.ts';

/**
 * Mastodon cursor pagination: max_id / since_id / min_id / limit in, a Link header out. The limit is
 * clamped to the endpoint's maximum (as Mastodon does) rather than rejected.
 */
export function pageQuery(params: Record<string, unknown>, defaultLimit: number, maxLimit: number): PageQuery {
  const details = new DetailsCollector();
  const cursor = (name: string): string | undefined => {
    const v = params[name];
    if (v === undefined || v === null || v === '') return undefined;
    const s = typeof v === 'number' ? String(v) : v;
    if (!isId(s)) {
      details.add(name, 'ERR_INVALID', 'is not a valid id');
      return undefined;
    }
    return s;
  };
  const maxId = cursor('max_id');
  const sinceId = cursor('since_id');
  const minId = cursor('min_id');
  details.throwIfAny();
  let limit = defaultLimit;
  const rawLimit = params.limit;
  if (rawLimit !== undefined && rawLimit !== '') {
    const n =
      typeof rawLimit === 'number'
        ? rawLimit
        : typeof rawLimit === 'string' && /^-?\d+$/.test(rawLimit.trim())
          ? Number(rawLimit)
          : NaN;
    if (Number.isFinite(n) && n > 0) limit = Math.min(Math.floor(n), maxLimit);
  }
  return { maxId, sinceId, minId, limit };
}

/**
 * Sets `Link: <…max_id=last>; rel="next", <…min_id=first>; rel="prev"` with absolute URLs that keep the
 * caller's other parameters. `next` only when the page is full, `prev` only when it is not empty, so
 * paginating clients stop; no header when neither is known.
 */
export function setLinkHeader(
  req: FastifyRequest,
  reply: FastifyReply,
  urls: SocialUrls,
  cursors: readonly string[],
  page: PageQuery,
): void {
  const link = linkHeader(req.url, urls, cursors, page);
  if (link !== null) reply.header('Link', link);
}

const CURSOR_KEYS = ['max_id', 'since_id', 'min_id'];
/**
 * No query, or `key=value` pairs of the characters URLSearchParams neither decodes nor encodes (letters, digits,
 * `*-._`): such a query is its own serialization.
 */
const PLAIN_QUERY = /^(?:[\w.*-]+=[\w.*-]*(?:&[\w.*-]+=[\w.*-]*)*)?$/;

/** The Link header of a page read at `url` (path and query), or null when it has none (see setLinkHeader). */
export function linkHeader(url: string, urls: SocialUrls, cursors: readonly string[], page: PageQuery): string | null {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const absolute = urls.absolute(path);
  // The request's other parameters, written back as URLSearchParams writes them: plain pairs as they came, in
  // their order (no parse: a client's usual `limit=40&max_id=…`), anything else through URLSearchParams.
  const others = PLAIN_QUERY.test(query)
    ? query
        .split('&')
        .filter((pair) => !CURSOR_KEYS.includes(pair.slice(0, pair.indexOf('='))))
        .join('&')
    : null;
  const link = (name: string, value: string) => {
    if (others !== null) return `<${absolute}?${others === '' ? '' : `${others}&`}${name}=${value}>`;
    const search = new URLSearchParams(query);
    for (const k of CURSOR_KEYS) search.delete(k);
    search.set(name, value);
    return `<${absolute}?${search.toString()}>`;
  };
  const parts: string[] = [];
  if (cursors.length > 0 && cursors.length >= page.limit)
    parts.push(`${link('max_id', cursors[cursors.length - 1])}; rel="next"`);
  if (cursors.length > 0) parts.push(`${link('min_id', cursors[0])}; rel="prev"`);
  return parts.length ? parts.join(', ') : null;
}

const offsetSchema = z.object({ limit: zInt.optional(), offset: zInt.optional() });

/** Offset pagination (trends, collections): limit / offset in, a `next` Link header while pages are full. */
export function offsetPage<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  urls: SocialUrls,
  defaultLimit: number,
  maxLimit: number,
  found: (limit: number, offset: number) => T[],
): T[] {
  const p = parseParams(offsetSchema, requestParams(req));
  const limit = Math.min(Math.max(p.limit ?? defaultLimit, 1), maxLimit);
  const offset = Math.max(p.offset ?? 0, 0);
  const rows = found(limit, offset);
  if (rows.length === limit) {
    const url = new URL(req.url, urls.base);
    url.searchParams.set('offset', String(offset + limit));
    reply.header('Link', `<${urls.base}${url.pathname}${url.search}>; rel="next"`);
  }
  return rows;
}

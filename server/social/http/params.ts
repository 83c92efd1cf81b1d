import qs from 'qs';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { ApiError, paramMissing, ValidationFailure, type ErrorDetails } from '../errors.ts';
import { isId } from '../ids.ts';
import { isUploadedFile, type UploadedFile } from '../media/index.ts';

/*
 * Rails-style parameters: `types[]=a&types[]=b`, `source[privacy]=x`, `fields_attributes[0][name]=y` in the
 * query string, form and multipart bodies (and bracketed keys in JSON) all become nested objects and arrays.
 * Query and body are merged as Rails does (body wins), then validated with zod per route.
 */

const QS_OPTIONS = {
  arrayLimit: 1000,
  parameterLimit: 2000,
  depth: 6,
  allowPrototypes: false,
  parseArrays: true,
} as const;

/** Plain `name=value` pairs (a timeline's `limit=20&max_id=…`): nothing qs would nest, decode or combine. */
const PLAIN_PAIRS = /^[A-Za-z0-9_]+=[A-Za-z0-9_.~-]*(?:&[A-Za-z0-9_]+=[A-Za-z0-9_.~-]*)*$/;

export function parseQueryString(text: string): Record<string, unknown> {
  // Most queries are plain pairs: split directly, where qs.parse took a few percent of a timeline request.
  // Repeated names (qs makes a list) and names of Object.prototype (qs drops them) still go to qs.
  if (text.length <= 1024 && PLAIN_PAIRS.test(text)) {
    const pairs: Record<string, unknown> = {};
    for (const pair of text.split('&')) {
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (name in pairs || name in Object.prototype) return qs.parse(text, QS_OPTIONS) as Record<string, unknown>;
      pairs[name] = pair.slice(eq + 1);
    }
    return pairs;
  }
  return qs.parse(text, QS_OPTIONS) as Record<string, unknown>;
}

/** Nests flat bracketed keys; values may be strings, string lists or uploaded files. */
export function nestFlatPairs(pairs: Record<string, unknown>): Record<string, unknown> {
  // Files go through qs as placeholders: qs walks objects it is given, which would crawl a file's bytes.
  const files: UploadedFile[] = [];
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pairs)) {
    const swap = (v: unknown) => (isUploadedFile(v) ? `\u0000file:${files.push(v) - 1}` : v);
    flat[key] = Array.isArray(value) ? value.map(swap) : swap(value);
  }
  const nested = qs.parse(flat as Record<string, string>, QS_OPTIONS) as Record<string, unknown>;
  const restore = (v: unknown): unknown => {
    if (typeof v === 'string' && v.startsWith('\u0000file:')) return files[Number(v.slice(6))];
    if (Array.isArray(v)) return v.map(restore);
    if (v && typeof v === 'object' && !isUploadedFile(v))
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, restore(x)]));
    return v;
  };
  return restore(nested) as Record<string, unknown>;
}

/** JSON bodies are nested already; bracketed top-level keys (rare, but Rails accepts them) are nested too. */
export function nestJsonKeys(body: Record<string, unknown>): Record<string, unknown> {
  const bracketed = Object.keys(body).filter((k) => k.includes('['));
  if (bracketed.length === 0) return body;
  const plain = Object.fromEntries(Object.entries(body).filter(([k]) => !k.includes('[')));
  const nested = nestFlatPairs(Object.fromEntries(bracketed.map((k) => [k, body[k]])));
  return { ...nested, ...plain };
}

/** Query and body parameters of a request, merged (body wins). */
export function requestParams(req: FastifyRequest): Record<string, unknown> {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const body =
    req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? (req.body as Record<string, unknown>) : {};
  return { ...query, ...body };
}

// ---- zod building blocks for Rails-style values

const FALSE_VALUES = new Set(['', '0', 'f', 'false', 'off', 'no', 'n']);

/** Booleans as Rails casts them: JSON booleans, or strings where 0/false/f/off/"" are false and anything else true. */
export const zBool = z.preprocess((v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return !FALSE_VALUES.has(v.trim().toLowerCase());
  return v;
}, z.boolean());

/** Integers from JSON numbers or numeric strings. */
export const zInt = z.preprocess(
  (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v),
  z.number().int(),
);

/** An id: a decimal string (numbers are accepted too, as some clients send them). */
export const zId = z.preprocess(
  (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v),
  z.string().refine(isId, 'is not a valid id'),
);

/** One value or a list of them (`id=1` as well as `id[]=1&id[]=2`); objects with numeric keys count as lists. */
export function zList<T extends z.ZodType>(item: T, max?: number): z.ZodType<z.output<T>[], unknown> {
  const list = max === undefined ? z.array(item) : z.array(item).max(max);
  return z.preprocess((v) => {
    if (v === undefined || v === null) return v;
    if (Array.isArray(v)) return v;
    if (typeof v === 'object' && !isUploadedFile(v)) return Object.values(v);
    return [v];
  }, list) as unknown as z.ZodType<z.output<T>[], unknown>;
}

/** A string that may come as a number; trims nothing (callers decide). */
export const zString = z.preprocess(
  (v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v),
  z.string(),
);

export const zFile = z.custom<UploadedFile>((v) => isUploadedFile(v), { message: 'must be an uploaded file' });

// ---- validation with Mastodon-style errors

function railsName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'base';
  const [head, ...rest] = path.map(String);
  return head + rest.map((p) => `[${p}]`).join('');
}

function describe(issue: z.core.$ZodIssue): { error: string; description: string } {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'string')
        return { error: 'ERR_TOO_LONG', description: `is too long (maximum is ${issue.maximum} characters)` };
      if (issue.origin === 'array')
        return { error: 'ERR_TOO_LONG', description: `has too many entries (maximum is ${issue.maximum})` };
      return { error: 'ERR_INVALID', description: `must be less than or equal to ${issue.maximum}` };
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? { error: 'ERR_BLANK', description: "can't be blank" }
          : { error: 'ERR_TOO_SHORT', description: `is too short (minimum is ${issue.minimum} characters)` };
      if (issue.origin === 'array')
        return { error: 'ERR_BLANK', description: `needs at least ${issue.minimum} entries` };
      return { error: 'ERR_INVALID', description: `must be greater than or equal to ${issue.minimum}` };
    case 'invalid_value':
      return {
        error: 'ERR_INCLUSION',
        description: `is not included in the list (${issue.values.map(String).join(', ')})`,
      };
    case 'invalid_type':
      return { error: 'ERR_INVALID', description: `is invalid (expected ${issue.expected})` };
    case 'custom':
      return { error: 'ERR_INVALID', description: issue.message };
    default:
      return { error: 'ERR_INVALID', description: issue.message || 'is invalid' };
  }
}

/**
 * Parses parameters with a zod schema. A required top-level parameter that is absent is a 400
 * ("param is missing"), anything else invalid a 422 with details per field.
 */
export function parseParams<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const missing = result.error.issues.find(
    (i) => i.code === 'invalid_type' && i.path.length === 1 && (i as { input?: unknown }).input === undefined,
  );
  if (missing) throw paramMissing(String(missing.path[0]));
  const details: ErrorDetails = {};
  for (const issue of result.error.issues) (details[railsName(issue.path)] ??= []).push(describe(issue));
  throw new ValidationFailure(details);
}

/** A path id that is not a valid id can name no record. */
export function pathId(req: FastifyRequest, name = 'id'): string {
  const raw = (req.params as Record<string, string>)[name];
  if (!isId(raw)) throw new ApiError(404, 'Record not found');
  return raw;
}

import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError, ValidationFailure } from '../errors.ts';
import { nestFlatPairs, nestJsonKeys, parseParams, parseQueryString, zBool, zId, zInt, zList } from './params.ts';

describe('Rails-style parameters', () => {
  it('nests brackets in query strings', () => {
    expect(
      parseQueryString(
        'types[]=mention&types[]=follow&id=5&source[privacy]=public&fields_attributes[0][name]=a&fields_attributes[1][name]=b',
      ),
    ).toEqual({
      types: ['mention', 'follow'],
      id: '5',
      source: { privacy: 'public' },
      fields_attributes: [{ name: 'a' }, { name: 'b' }],
    });
    expect(parseQueryString('__proto__[x]=1&constructor[prototype][y]=2')).toEqual({});
  });

  it('reads plain pairs directly as qs reads them, repeated and prototype names included', () => {
    const qsRead = (text: string) =>
      qs.parse(text, { arrayLimit: 1000, parameterLimit: 2000, depth: 6, allowPrototypes: false, parseArrays: true });
    for (const text of [
      'limit=20',
      'limit=20&max_id=114477000000000000&since_id=1',
      'a=1&a=2',
      'constructor=1&limit=2',
      'toString=x',
      '__proto__=1',
      'hasOwnProperty=1&b=2',
      'x=&y=',
      'q=a+b&r=%41',
      'only_media=true&local=1&tag.x=5',
      'a=1&&b=2',
    ])
      expect(parseQueryString(text), text).toEqual(qsRead(text));
  });

  it('nests flat multipart pairs, keeping files as they are', () => {
    const file = { filename: 'a.png', mimetype: 'image/png', path: '/tmp/upload.tmp', size: 1_000_000 };
    expect(
      nestFlatPairs({ 'source[privacy]': 'private', avatar: file, 'id[]': ['1', '2'], 'poll[options][]': ['a'] }),
    ).toEqual({
      source: { privacy: 'private' },
      avatar: file,
      id: ['1', '2'],
      poll: { options: ['a'] },
    });
    expect(nestJsonKeys({ 'source[language]': 'de', note: 'x' })).toEqual({ source: { language: 'de' }, note: 'x' });
  });

  it('casts booleans, integers, ids and lists as Rails does', () => {
    const schema = z.object({ a: zBool, b: zBool, c: zBool, n: zInt, id: zId, ids: zList(zId, 2) });
    expect(parseParams(schema, { a: 'false', b: '1', c: '', n: '42', id: 7, ids: '3' })).toEqual({
      a: false,
      b: true,
      c: false,
      n: 42,
      id: '7',
      ids: ['3'],
    });
    expect(parseParams(schema, { a: true, b: 'off', c: 'on', n: -1, id: '8', ids: { 0: '1', 1: '2' } })).toEqual({
      a: true,
      b: false,
      c: true,
      n: -1,
      id: '8',
      ids: ['1', '2'],
    });
  });

  it('answers a missing required parameter with 400 and bad values with 422 details', () => {
    const schema = z.object({ domain: z.string(), limit: zInt.optional(), tags: zList(z.string(), 1).optional() });
    try {
      parseParams(schema, {});
      expect.unreachable();
    } catch (err) {
      // A domain error of kind bad_request: the HTTP layer answers it with 400.
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).kind).toBe('bad_request');
      expect((err as DomainError).message).toBe('param is missing or the value is empty: domain');
    }
    try {
      parseParams(schema, { domain: 'x', limit: 'lots', tags: ['a', 'b'] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationFailure);
      expect((err as ValidationFailure).details).toEqual({
        limit: [{ error: 'ERR_INVALID', description: 'is invalid (expected number)' }],
        tags: [{ error: 'ERR_TOO_LONG', description: 'has too many entries (maximum is 1)' }],
      });
      expect((err as ValidationFailure).message).toBe(
        'Validation failed: Limit is invalid (expected number), Tags has too many entries (maximum is 1)',
      );
    }
  });
});

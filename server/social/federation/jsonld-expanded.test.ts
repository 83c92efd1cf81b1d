import { isDeepStrictEqual } from 'node:util';
import { Object as APObject } from '@fedify/vocab';
import jsonld from '@fedify/vocab-runtime/jsonld';
import { describe, expect, it } from 'vitest';
import { type JsonLdProcessor, skipExpandedDocuments } from './jsonld-expanded.ts';
import { contextLoaderFactory } from './loaders.ts';
import { corpusDocuments } from './testing/corpus-documents.ts';

/** Fedify's reading of a document (a loader of its own, as each reading gets), written out expanded. */
async function reading(json: object): Promise<unknown> {
  const contextLoader = contextLoaderFactory({});
  try {
    const object = await APObject.fromJsonLd(structuredClone(json), { contextLoader, documentLoader: contextLoader });
    return await object.toJsonLd({ format: 'expand', contextLoader });
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

const real = jsonld.expand.bind(jsonld) as JsonLdProcessor['expand'];

/** A processor with the fast path over jsonld.js, counting what reaches jsonld.js. */
function countingFastPath(): { fast: JsonLdProcessor; fallbacks: { count: number } } {
  const fallbacks = { count: 0 };
  const fast: JsonLdProcessor = {
    expand: (input, options) => {
      fallbacks.count++;
      return real(input, options);
    },
  };
  skipExpandedDocuments(fast);
  return { fast, fallbacks };
}

describe('expanded documents skip jsonld.js', () => {
  it('expand as jsonld.js expands them, on every expansion Fedify makes reading the corpus, and read the same', async () => {
    const documents = corpusDocuments();
    expect(documents.length).toBeGreaterThan(100);
    // Every expansion Fedify asks for while reading the corpus, and the reading itself.
    type Options = Parameters<JsonLdProcessor['expand']>[1];
    const calls: { input: unknown; options: Options; expected: unknown }[] = [];
    jsonld.expand = ((input: unknown, options?: Options) => {
      const call = { input: structuredClone(input), options, expected: undefined as unknown };
      calls.push(call);
      // Copied before Fedify gets it (it edits what it gets).
      return real(input, options).then(
        (expanded) => {
          call.expected = structuredClone(expanded);
          return expanded;
        },
        (err: Error) => {
          call.expected = `error: ${err.message}`;
          throw err;
        },
      );
    }) as typeof jsonld.expand;
    const before = [];
    for (const { json } of documents) before.push(await reading(json));
    jsonld.expand = real as typeof jsonld.expand;

    const { fast, fallbacks } = countingFastPath();
    const differing: string[] = [];
    for (const { input, options, expected } of calls) {
      const got = await fast.expand(structuredClone(input), options).catch((err: Error) => `error: ${err.message}`);
      if (!isDeepStrictEqual(got, expected)) differing.push(JSON.stringify(input).slice(0, 200));
    }
    expect(differing).toEqual([]);
    // Many of them were of expanded documents (Fedify's class levels and embedded objects).
    expect(calls.length - fallbacks.count).toBeGreaterThan(calls.length / 3);

    skipExpandedDocuments(jsonld);
    for (const [i, { name, json }] of documents.entries())
      expect([name, await reading(json)]).toEqual([name, before[i]]);
  });

  it('hands anything not plainly expanded to jsonld.js', async () => {
    const { fast, fallbacks } = countingFastPath();
    const AS = 'https://www.w3.org/ns/activitystreams#';
    const options = { keepFreeFloatingNodes: true };
    const cases: unknown[] = [
      { '@context': 'https://www.w3.org/ns/activitystreams', type: 'Note' },
      { '@id': 'relative/id', '@type': [`${AS}Note`] },
      { '@type': `${AS}Note` },
      { [`${AS}content`]: [{ '@value': null }] },
      { [`${AS}content`]: 'not an array' },
      { content: ['a term, not an IRI'] },
      { [`${AS}items`]: [{ '@list': [{ '@value': 'a' }] }] },
      { [`${AS}content`]: [{ '@value': 'a', '@type': 'x:y', '@language': 'en' }] },
      { '@graph': [] },
      { '@type': [], [`${AS}content`]: [{ '@value': 'a' }] },
      { [`${AS}content`]: [{ '@value': 'a', '@type': '_:b' }] },
      { '@type': ['_:b'] },
      { '_:p': [{ '@value': 'a' }] },
      {},
    ];
    for (const input of cases) {
      const before = fallbacks.count;
      const expected = await real(structuredClone(input), options).catch((err: Error) => `error: ${err.message}`);
      const got = await fast.expand(structuredClone(input), options).catch((err: Error) => `error: ${err.message}`);
      expect([input, got]).toEqual([input, expected]);
      expect(fallbacks.count - before).toBe(1);
    }
    // Without keepFreeFloatingNodes (not Fedify's reader) nothing is skipped.
    const before = fallbacks.count;
    await fast.expand({ '@id': 'https://b.test/1', '@type': [`${AS}Note`] }, {});
    expect(fallbacks.count - before).toBe(1);
  });

  it('takes plainly expanded nodes as jsonld.js gives them: language tags, numbers, blank nodes, empty values', async () => {
    const { fast, fallbacks } = countingFastPath();
    const P = 'https://x.test/p';
    const cases: unknown[] = [
      { [P]: [{ '@value': 'a', '@language': 'en-US' }] },
      { '@id': 'http://a.test/b/../c', [P]: [{ '@id': 'http://a.test/./d' }] },
      { [P]: [{ '@value': 1.5, '@type': 'http://www.w3.org/2001/XMLSchema#double' }, { '@value': true }] },
      { [P]: [] },
      { '@id': '_:b0', [P]: [{ '@id': '_:b1' }] },
    ];
    for (const input of cases) {
      const expected = await real(structuredClone(input), { keepFreeFloatingNodes: true });
      expect([input, await fast.expand(structuredClone(input), { keepFreeFloatingNodes: true })]).toEqual([
        input,
        expected,
      ]);
    }
    expect(fallbacks.count).toBe(0);
  });

  it('hands out copies: the caller may edit what it got', async () => {
    const fast: JsonLdProcessor = { expand: real };
    skipExpandedDocuments(fast);
    const input = { '@id': 'https://b.test/1', '@type': ['https://www.w3.org/ns/activitystreams#Note'] };
    const [out] = (await fast.expand(input, { keepFreeFloatingNodes: true })) as Record<string, unknown>[];
    (out['@type'] as string[]).push('edited');
    expect(input['@type']).toEqual(['https://www.w3.org/ns/activitystreams#Note']);
  });
});

import { Activity, Note } from '@fedify/vocab';
import jsonld from '@fedify/vocab-runtime/jsonld';
import { describe, expect, it } from 'vitest';
import type { Account } from '../store/index.ts';
import { sanitizeRemoteHtml } from './html.ts';
import { plainCreateReader } from './inbox-plain-create.ts';
import { contextLoaderFactory } from './loaders.ts';
import { parsePlainStatus, parseStatus } from './statuses-inbound.ts';
import { mastodonCreate, outcome, PUBLIC } from './testing/activities.ts';
import { corpusDocuments } from './testing/corpus-documents.ts';

/*
 * The verifier's worker leaves Fedify's reading out for a Create its plain reader takes (inbox-verifier.ts), so the
 * reader must take nothing that reading refuses. Every value of Mastodon-shaped Creates is replaced in turn by
 * values Fedify's reading fails on or reads differently, and every object of them is given extra properties such
 * values: wherever the reader takes a variant, Fedify's reading takes it too, with the same actor, and what the
 * inbox stores from it is the same.
 */

type Json = Record<string, any>;
const contextLoader = contextLoaderFactory({});
const documentLoader = (url: string) => Promise.reject(new Error(`not fetched: ${url}`));
const readPlainCreate = plainCreateReader(sanitizeRemoteHtml);

const ACTOR = 'https://masto.test/users/ana';
const GTS = 'https://gotosocial.org/ns#';

/** A Create as Mastodon sends one (bench:federation's Mastodon shape), updated, with likes, shares, a quote policy. */
const MASTODON_CREATE: Json = mastodonCreate(ACTOR, 1, 'https://home.test/users/lain', '2026-01-02T03:04:05Z');
Object.assign(MASTODON_CREATE.object, {
  updated: '2026-01-02T04:04:05Z',
  likes: { id: `${ACTOR}/statuses/1/likes`, type: 'Collection', totalItems: 2 },
  shares: { id: `${ACTOR}/statuses/1/shares`, type: 'Collection', totalItems: 0 },
  [`${GTS}interactionPolicy`]: {
    [`${GTS}canQuote`]: { [`${GTS}automaticApproval`]: { '@id': PUBLIC }, [`${GTS}manualApproval`]: [] },
  },
});

/** Values Fedify's reading fails on or reads its own way, wherever they are given. */
const HOSTILE: unknown[] = [
  null,
  '',
  'not a url',
  'http://[::1',
  -1,
  1.5,
  true,
  {},
  [],
  { id: 'http://[::1' },
  { type: 'Note' },
  { type: 'Collection', id: 'http://[::1' },
  { type: 'Link', href: 'http://[::1' },
  { '@value': 'x', '@language': 'not a tag!' },
  { '@value': 'x', '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' },
  '2026-02-30T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-01-01T00:00:00+24:00',
  '1969-12-31T23:59:59Z',
];
/** Properties added to every object (those its reader may read, and some it may not), with some of those values. */
const EXTRA_KEYS = ['updated', 'context', 'replies', 'href', 'image', 'bto'];
const EXTRA_VALUES = [2, 3, 10, 11, 12, 15].map((i) => HOSTILE[i]);

/** Every variant: each value (an array's items too) replaced by each hostile value, each object given extra ones. */
function* variants(doc: Json): Generator<{ name: string; json: Json }> {
  const paths: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
    else if (typeof value === 'object' && value !== null) {
      if (path.length > 0 && path[0] !== '@context') paths.push([...path, '+']);
      for (const [key, item] of Object.entries(value)) if (key !== '@context') walk(item, [...path, key]);
    }
    if (path.length > 0) paths.push(path);
  };
  walk(doc, []);
  for (const path of paths) {
    const adds = path.at(-1) === '+';
    for (const replacement of adds ? EXTRA_VALUES : HOSTILE)
      for (const key of adds ? EXTRA_KEYS : ['']) {
        const json = structuredClone(doc);
        let target: any = json;
        for (const step of path.slice(0, -1)) target = target[step];
        if (adds) target[key] = structuredClone(replacement);
        else target[path.at(-1) as string] = structuredClone(replacement);
        yield { name: `${path.join('.')}${key} = ${JSON.stringify(replacement)}`, json };
      }
  }
}

const accountOf = (uri: string) => ({ uri, followersUrl: `${uri}/followers`, domain: new URL(uri).host }) as Account;

/** Fedify's reading of `json` (what the worker left out), or the error it fails with. */
async function fedifyReading(json: Json): Promise<Activity | Error> {
  try {
    return await Activity.fromJsonLd(json, { contextLoader, documentLoader });
  } catch (err) {
    return err as Error;
  }
}

describe("the worker's plain reader, in place of Fedify's reading", () => {
  it("takes no variant of Mastodon's Creates that Fedify's reading refuses, and stores the rest as Fedify's objects give", async () => {
    const corpus = corpusDocuments().find((d) => d.name === 'mastodon-post-activity.json');
    expect(corpus).toBeDefined();

    let taken = 0;
    const wronglyTaken: string[] = [];
    for (const base of [MASTODON_CREATE, corpus!.json]) {
      for (const { name, json } of variants(base)) {
        const expansion = await jsonld
          .expand(structuredClone(json), { documentLoader: contextLoader, keepFreeFloatingNodes: true })
          .catch(() => null);
        const plain = expansion === null ? null : readPlainCreate(expansion);
        if (!plain) continue;
        taken++;
        const activity = await fedifyReading(json);
        if (activity instanceof Error) {
          wronglyTaken.push(`${name}: ${activity.message}`);
          continue;
        }
        expect(plain.actor, name).toBe(activity.actorId?.href);
        const note = await activity.getObject({ contextLoader, documentLoader });
        expect(note, name).toBeInstanceOf(Note);
        const author = accountOf(plain.actor);
        expect(await outcome(() => parsePlainStatus(plain.object, author)), name).toEqual(
          await outcome(() => parseStatus(note as Note, author, activity)),
        );
      }
    }
    expect(wronglyTaken).toEqual([]);
    // Not vacuous: the reader takes many variants.
    expect(taken).toBeGreaterThan(400);
  });

  it('leaves to Fedify each Create its reading refuses for a value the listener does not use', async () => {
    const BAD = 'http://[::1';
    const cases: [string, (create: Json) => void][] = [
      ['a date Date.parse takes (30 February)', (c) => (c.object.published = '2026-02-30T00:00:00Z')],
      ["the Create's date at 24:00", (c) => (c.published = '2026-01-01T24:00:00Z')],
      ['an update in month 13', (c) => (c.object.updated = '2026-13-01T00:00:00Z')],
      ['a second address the listener does not use', (c) => c.to.push(BAD)],
      ['a property of the Create it does not read', (c) => (c.bto = BAD)],
      ['a context', (c) => (c.object.context = BAD)],
      ['a replies collection with a bad id', (c) => (c.object.replies.id = BAD)],
      ['a replies page with a bad next page', (c) => (c.object.replies.first.next = BAD)],
      ['a likes collection with an image', (c) => (c.object.likes.image = BAD)],
      ['a mention with a preview', (c) => (c.object.tag[0].preview = BAD)],
      [
        'a quote policy with a bad manual approval',
        (c) => (c.object[`${GTS}interactionPolicy`][`${GTS}canQuote`][`${GTS}manualApproval`] = { '@id': BAD }),
      ],
      [
        'a like policy with a bad approval',
        (c) => (c.object[`${GTS}interactionPolicy`][`${GTS}canLike`] = { [`${GTS}automaticApproval`]: { '@id': BAD } }),
      ],
    ];
    for (const [name, change] of cases) {
      const json = structuredClone(MASTODON_CREATE);
      change(json);
      const expansion = await jsonld.expand(structuredClone(json), {
        documentLoader: contextLoader,
        keepFreeFloatingNodes: true,
      });
      expect(await fedifyReading(json), name).toBeInstanceOf(Error);
      expect(readPlainCreate(expansion), name).toBeNull();
    }
    const expansion = await jsonld.expand(structuredClone(MASTODON_CREATE), {
      documentLoader: contextLoader,
      keepFreeFloatingNodes: true,
    });
    expect(readPlainCreate(expansion)).not.toBeNull();
  });
});

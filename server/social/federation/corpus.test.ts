import fs from 'node:fs';
import path from 'node:path';
import {
  Activity,
  Article,
  Create,
  isActor,
  Note,
  Object as APObject,
  Question,
  Update,
  type DocumentLoader,
} from '@fedify/vocab';
import { describe, expect, it } from 'vitest';
import type { Account } from '../store/index.ts';
import { fixturePath } from '../testing/fixtures.ts';
import { contextLoaderFactory } from './loaders.ts';
import { actorData, RejectedDocument } from './remote.ts';
import { parseStatus } from './statuses-inbound.ts';

/*
 * Corpus replay: every document of the vendored real-world corpus (Mastodon, Pleroma, Misskey, Hubzilla,
 * PeerTube, Lemmy… from soapbox-pub/rebased) goes through the parser the inbox uses — Fedify's vocabulary,
 * then our actor and status readers — and is either taken into our model or refused with a reason. Nothing
 * is fetched: JSON-LD contexts come from Fedify's preloaded set, anything else is refused offline.
 */

const CORPUS = fixturePath('activitypub-rebased');

const offline: DocumentLoader = async (url) => {
  throw new RejectedDocument(`would need ${url} (remote documents are not fetched in the replay)`);
};
// Contexts as the server reads them (preloaded, unknown ones empty); nothing else is fetched.
const loaders = { documentLoader: offline, contextLoader: contextLoaderFactory() };

/** The author a status is checked against: the actor that sent it, as federation stores it. */
function authorOf(uri: string): Account {
  return { uri, followersUrl: `${uri}/followers`, domain: new URL(uri).host } as Account;
}

async function readStatus(object: APObject, actorId: URL | null): Promise<string> {
  const attributed = actorId ?? object.attributionId;
  if (!attributed) return 'rejected: a status without an author';
  const parsed = await parseStatus(object, authorOf(attributed.href));
  return `parsed: ${object.constructor.name} ${parsed.visibility}${parsed.tags.length ? ` #${parsed.tags.join(' #')}` : ''}${parsed.sensitive ? ' sensitive' : ''}${parsed.language ? ` ${parsed.language}` : ''}${parsed.attachments.length ? ` ${parsed.attachments.length} attachment(s)` : ''}`;
}

async function replay(json: unknown): Promise<string> {
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !('type' in json))
    return 'rejected: not an ActivityStreams object';
  let object: APObject;
  try {
    object = await APObject.fromJsonLd(json, loaders);
  } catch (err) {
    return `rejected: not valid ActivityStreams (${(err as Error).message.split('\n')[0]})`;
  }
  try {
    if (isActor(object)) {
      const data = await actorData(object);
      return `parsed: ${data.actorType} @${data.username}@${data.domain}${data.locked ? ' locked' : ''}${data.fields.length ? ` ${data.fields.length} field(s)` : ''}`;
    }
    if (object instanceof Create || object instanceof Update) {
      const inner = await object.getObject(loaders);
      if (inner instanceof Note || inner instanceof Question || inner instanceof Article)
        return `${object.constructor.name} → ${await readStatus(inner, object.actorId)}`;
      if (isActor(inner)) return `${object.constructor.name} → parsed: actor ${(await actorData(inner)).username}`;
      return `rejected: ${object.constructor.name} of ${inner?.constructor.name ?? 'nothing'} is not handled`;
    }
    if (object instanceof Note || object instanceof Question || object instanceof Article)
      return await readStatus(object, null);
    if (object instanceof Activity)
      return `parsed: ${object.constructor.name} by ${object.actorId?.href ?? 'nobody'} (handled by the inbox: ${['Follow', 'Accept', 'Reject', 'Undo', 'Delete'].includes(object.constructor.name)})`;
    return `rejected: a ${object.constructor.name} is not something an inbox takes`;
  } catch (err) {
    if (err instanceof RejectedDocument) return `rejected: ${err.message}`;
    throw err;
  }
}

function corpusFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? corpusFiles(path.join(dir, e.name)) : e.name.endsWith('.json') ? [path.join(dir, e.name)] : [],
    );
}

describe('corpus replay', () => {
  it('takes every document into the model or refuses it with a reason, never crashing', async () => {
    const files = corpusFiles(CORPUS);
    expect(files.length).toBeGreaterThan(150);
    const outcomes = new Map<string, string>();
    for (const file of files) {
      const name = path.relative(CORPUS, file);
      let json: unknown;
      try {
        json = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        outcomes.set(name, 'rejected: not JSON');
        continue;
      }
      // A crash (anything but a refusal) fails the test with the file that caused it.
      outcomes.set(name, await replay(json).catch((err: Error) => `CRASH ${err.stack}`));
    }
    if (process.env.HOMEPORT_CORPUS_REPORT)
      for (const [name, outcome] of outcomes) process.stderr.write(`${name}: ${outcome}\n`);
    const crashes = [...outcomes].filter(([, o]) => o.startsWith('CRASH'));
    expect(crashes).toEqual([]);
    for (const outcome of outcomes.values())
      expect(outcome).toMatch(/^(parsed|rejected: .+|(Create|Update) → (parsed|rejected: .+))/);

    // What real servers send comes out as Mastodon would read it.
    expect(outcomes.get('mastodon-post-activity.json')).toMatch(/^Create → parsed: Note public/);
    expect(outcomes.get('mastodon-post-activity-hashtag.json')).toContain('#moo');
    expect(outcomes.get('mastodon-post-activity-nsfw.json')).toContain('sensitive');
    expect(outcomes.get('mastodon-post-activity-contentmap.json')).toMatch(/ (en|ja|de|fr)\b/);
    expect(outcomes.get('mastodon-create-with-attachment.json')).toContain('1 attachment(s)');
    expect(outcomes.get('mastodon-question-activity.json')).toMatch(/^Create → parsed: Question/);
    expect(outcomes.get('tesla_mock/aimu@misskey.io.json')).toMatch(/^parsed: Person @aimu@misskey\.io/);
    // Pleroma's per-instance litepub context is not fetched, yet its actors keep their keys.
    expect(outcomes.get('tesla_mock/helene@p.helene.moe.json')).toMatch(/^parsed: Person @helene@p\.helene\.moe/);
    const parsed = [...outcomes.values()].filter((o) => o.includes('parsed')).length;
    expect(parsed).toBeGreaterThan(60);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations/index.ts';
import { SocialStore } from './index.ts';

/*
 * Writes made outside a request (a link's preview card fetched after its post) join the server's group
 * commit like a post does: a lone statement would commit, and fsync on the main thread, by itself.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-write-paths-'));
const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'FULL' });
const store = new SocialStore(db);
store.groupCommits();

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('background writes of the social store', () => {
  it('remember a link fetch and save a card in the open write group, on disk once it commits', async () => {
    const before = store.groupsCommitted;
    store.previewCards.recordFetch('https://example.org/a', null);
    const cardId = store.previewCards.save({
      url: 'https://example.org/b',
      title: 'B',
      description: '',
      type: 'link',
      linkType: 'unknown',
      authorName: '',
      authorUrl: '',
      providerName: '',
      providerUrl: '',
      html: '',
      width: 0,
      height: 0,
      imageFile: null,
      imageDescription: '',
      blurhash: null,
      embedUrl: '',
      language: null,
      publishedAt: null,
    });
    store.previewCards.recordFetch('https://example.org/b', cardId);
    expect(store.writesPending).toBe(true);
    await store.durable();
    expect(store.groupsCommitted).toBe(before + 1);
    expect(store.previewCards.lastFetch('https://example.org/a')).toMatchObject({ cardId: null });
    expect(store.previewCards.lastFetch('https://example.org/b')).toMatchObject({ cardId });
  });
});

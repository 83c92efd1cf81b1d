import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations/index.ts';
import { type RemoteActorData, SocialStore } from '../store/index.ts';
import { knownAccountByUri } from './known-accounts.ts';

/*
 * The inbound listeners' account lookups by actor id (knownAccountByUri): reused across a burst, and read
 * again after each way an account changes. Each test below fails with a cache that keeps what it read.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-known-accounts-'));
const file = path.join(dir, 'social.db');
const db = openDatabase(file, { migrations: socialMigrations, synchronous: 'FULL' });
const store = new SocialStore(db);
// As the server runs it: writes of one turn commit together.
store.groupCommits();

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const publicKey = () =>
  crypto
    .generateKeyPairSync('rsa', { modulusLength: 1024 })
    .publicKey.export({ type: 'spki', format: 'pem' }) as string;

let next = 0;
function remoteActor(changes: Partial<RemoteActorData> = {}): RemoteActorData {
  const username = `bob${next++}`;
  const uri = `https://b.test/users/${username}`;
  return {
    username,
    domain: 'b.test',
    uri,
    url: `https://b.test/@${username}`,
    actorType: 'Person',
    displayName: 'Bob',
    note: '',
    fields: [],
    locked: false,
    discoverable: true,
    indexable: true,
    inboxUrl: `${uri}/inbox`,
    sharedInboxUrl: 'https://b.test/inbox',
    outboxUrl: `${uri}/outbox`,
    followersUrl: `${uri}/followers`,
    followingUrl: `${uri}/following`,
    featuredUrl: null,
    avatarRemoteUrl: null,
    headerRemoteUrl: null,
    alsoKnownAs: [],
    publicKey: publicKey(),
    suspended: false,
    counts: null,
    ...changes,
  };
}

/** A remote account stored and looked up once (so that a cache holds it). */
async function known(): Promise<{ actor: RemoteActorData; id: string }> {
  const actor = remoteActor();
  const id = store.federation.upsertRemoteAccount(actor);
  await store.durable();
  expect(knownAccountByUri(store, actor.uri)?.id).toBe(id);
  return { actor, id };
}

describe('account lookups by actor id', () => {
  it('read the table once for a burst of activities from one actor, while statuses are written', async () => {
    const { actor, id } = await known();
    const byUri = vi.spyOn(store.accounts, 'byUri');
    try {
      for (let i = 0; i < 5; i++) {
        // What each Create writes in between must not empty it (here the cheapest row of a status).
        store.transaction(() => store.statuses.newConversation());
        expect(knownAccountByUri(store, actor.uri)?.id).toBe(id);
      }
      await store.durable();
      expect(knownAccountByUri(store, actor.uri)?.id).toBe(id);
      expect(byUri).not.toHaveBeenCalled();
    } finally {
      byUri.mockRestore();
    }
  });

  it('see an Update of the actor (its profile and its key written again)', async () => {
    const { actor } = await known();
    const key = publicKey();
    store.federation.upsertRemoteAccount({ ...actor, displayName: 'Robert', publicKey: key });
    expect(knownAccountByUri(store, actor.uri)?.displayName).toBe('Robert');
    expect(store.accounts.keyPair(knownAccountByUri(store, actor.uri)!.id)?.publicKey).toBe(key);
  });

  it('see a Delete of the actor (then it is not known: what comes from it is from an unknown actor)', async () => {
    const { actor, id } = await known();
    store.federation.forgetRemoteAccount(id);
    expect(knownAccountByUri(store, actor.uri)).toBeNull();
    // Served again by its server, the actor is the account back under its old id.
    expect(store.federation.upsertRemoteAccount(actor)).toBe(id);
    expect(knownAccountByUri(store, actor.uri)?.deletedAt).toBeNull();
  });

  it('see a Move of the actor', async () => {
    const { actor, id } = await known();
    const target = await known();
    store.accounts.setMovedTo(id, target.id);
    expect(knownAccountByUri(store, actor.uri)?.movedToAccountId).toBe(target.id);
  });

  it('see a suspension or silencing here (a moderator, or a domain block put on the domain’s accounts)', async () => {
    const { actor, id } = await known();
    store.accounts.setSuspended(id, true);
    expect(knownAccountByUri(store, actor.uri)?.suspendedAt).not.toBeNull();
    store.accounts.setSilenced(id, true);
    expect(knownAccountByUri(store, actor.uri)?.silencedAt).not.toBeNull();
  });

  it('see a write by another connection (the admin CLI)', async () => {
    const { actor } = await known();
    const cli = new Database(file);
    try {
      cli.prepare("UPDATE accounts SET display_name = 'Changed elsewhere' WHERE uri = ?").run(actor.uri);
    } finally {
      cli.close();
    }
    // Seen from the next turn of the event loop on (data_version is asked once per turn).
    await new Promise((resolve) => setImmediate(resolve));
    expect(knownAccountByUri(store, actor.uri)?.displayName).toBe('Changed elsewhere');
  });

  it('are frozen: a reader cannot change what the next one reads', async () => {
    const { actor } = await known();
    const account = knownAccountByUri(store, actor.uri)!;
    expect(() => {
      (account as { displayName: string }).displayName = 'x';
    }).toThrow(TypeError);
  });
});

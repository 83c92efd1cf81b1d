import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { noteOf } from './objects.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/*
 * Outbound work is only done for a remote audience: a local post nobody on another server follows or is
 * mentioned in builds no ActivityPub Note and sends nothing; one with a remote follower still federates.
 * noteOf is wrapped to count the Notes built for each status.
 */
vi.mock('./objects.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('./objects.ts')>();
  return { ...original, noteOf: vi.fn(original.noteOf) };
});

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  b = await net.add('b.test');
});
afterAll(async () => {
  await net?.close();
});

const notesBuiltFor = (statusId: string) =>
  vi.mocked(noteOf).mock.calls.filter(([, status]) => status.id === statusId).length;
const inboxPostsFromA = () => net.log.filter((l) => l.method === 'POST' && l.url.startsWith('https://b.test/'));

describe('outbound audience', () => {
  it('a post without remote audience builds no Note and sends nothing; with a remote follower it federates', async () => {
    const alone = await a.createUser('alone');
    const followed = await a.createUser('followed');
    const bob = await b.createUser('bob');

    const quiet = await alone.client.v1.statuses.create({ status: 'nobody out there', visibility: 'public' });
    const edited = await alone.client.v1.statuses.$select(quiet.id).update({ status: 'nobody out there, edited' });
    expect(edited.editedAt).not.toBeNull();
    await a.social.federation!.idle();
    expect(notesBuiltFor(quiet.id)).toBe(0);
    expect(inboxPostsFromA()).toEqual([]);

    const target = await bob.client.v1.accounts.lookup({ acct: 'followed@a.test' });
    await bob.client.v1.accounts.$select(target.id).follow();
    await eventually(
      async () => (await bob.client.v1.accounts.relationships.fetch({ id: [target.id] }))[0].following,
      'bob follows followed@a.test',
    );
    const heard = await followed.client.v1.statuses.create({ status: 'hello b.test', visibility: 'public' });
    await eventually(
      async () => (await bob.client.v1.timelines.home.list()).find((s) => s.uri === heard.uri),
      'the post in bob’s home timeline',
    );
    expect(notesBuiltFor(heard.id)).toBeGreaterThan(0);
  });
});

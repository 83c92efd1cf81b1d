import type { Context } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FedDeps } from './deps.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/*
 * Outbound work is only done for a remote audience: a local post nobody on another server follows or is
 * mentioned in builds no ActivityPub Note and sends nothing; one with a remote follower still federates.
 * Building a Note asks the Fedify context for its author's followers collection: the contexts a.test's
 * federation creates are wrapped to record whose collection is asked for.
 */

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
const followersAskedFor: string[] = [];

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  b = await net.add('b.test');
  const fedify = await a.social.federation!.fedify();
  const createContext = fedify.createContext.bind(fedify) as (url: URL, data: FedDeps) => Context<FedDeps>;
  const recording = (url: URL, data: FedDeps): Context<FedDeps> => {
    const context = createContext(url, data);
    const followersUri = context.getFollowersUri.bind(context);
    context.getFollowersUri = (identifier: string) => {
      followersAskedFor.push(identifier);
      return followersUri(identifier);
    };
    return context;
  };
  vi.spyOn(fedify, 'createContext').mockImplementation(recording as typeof fedify.createContext);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await net?.close();
});

describe('outbound audience', () => {
  it('a post without remote audience builds no Note and sends nothing; with a remote follower it federates', async () => {
    const alone = await a.createUser('alone');
    const followed = await a.createUser('followed');
    const bob = await b.createUser('bob');

    const quiet = await alone.client.v1.statuses.create({ status: 'nobody out there', visibility: 'public' });
    const edited = await alone.client.v1.statuses.$select(quiet.id).update({ status: 'nobody out there, edited' });
    expect(edited.editedAt).not.toBeNull();
    await a.social.federation!.idle();
    expect(followersAskedFor).not.toContain('alone');
    expect(net.log.filter((l) => l.method === 'POST' && l.url.startsWith('https://b.test/'))).toEqual([]);

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
    expect(followersAskedFor).toContain('followed');
  });
});

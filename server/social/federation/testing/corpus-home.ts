import { expect } from 'vitest';
import { readFixture, RecordedPeers, rewrite, type Json } from './recorded-peers.ts';
import {
  createTestNetwork,
  eventually,
  type TestInstance,
  type TestNetwork,
  useNetworkFixture,
} from './test-network.ts';

/*
 * The home of the corpus inbox tests: a live Homeport (home.test) with lain, the corpus's own recipient, and the
 * recorded peers that deliver to her inbox with valid signatures; what the tests do through her Mastodon API.
 */

export const HOME = 'https://home.test';
export const INBOX = `${HOME}/inbox`;
export const LAIN = `${HOME}/users/lain`;

/** The corpus's recipients (lain on the Pleroma test servers, and others) as lain here. */
export const TO_LAIN = {
  'http://localtesting.pleroma.lol/users/lain': LAIN,
  'https://localtesting.pleroma.lol/users/lain': LAIN,
  '@lain@localtesting.pleroma.lol': '@lain@home.test',
};

/** A recorded payload that names only Mastodon's extension context, with ActivityStreams' before it (as sent today). */
export function withActivityStreamsContext(activity: Json): Json {
  return { ...activity, '@context': ['https://www.w3.org/ns/activitystreams', ...[activity['@context']].flat()] };
}

export class CorpusHome {
  net!: TestNetwork;
  home!: TestInstance;
  lain!: Awaited<ReturnType<TestInstance['createUser']>>;
  peers!: RecordedPeers;

  async start(): Promise<void> {
    this.net = createTestNetwork();
    this.home = await this.net.add('home.test');
    this.lain = await this.home.createUser('lain');
    this.peers = new RecordedPeers(this.net);
  }

  async deliver(activity: Json): Promise<void> {
    const res = await this.peers.deliver(INBOX, activity);
    expect(res.status, await res.clone().text()).toBe(202);
  }

  /** A new post of lain's, and the corpus's object ids (of a Like, a boost…) rewritten to it. */
  async lainPost(text: string, objectIds: string[]): Promise<{ id: string; replacements: Record<string, string> }> {
    const status = await this.lain.client.v1.statuses.create({ status: text });
    return { id: status.id, replacements: Object.fromEntries(objectIds.map((id) => [id, status.uri])) };
  }

  notificationsOf(type: 'mention' | 'favourite' | 'reblog' | 'follow') {
    return this.lain.client.v1.notifications.list({ types: [type], limit: 40 });
  }

  /** A reaction payload (Like, EmojiReact) about a new post of lain's: the favourite notification it makes. */
  async reactionTo(file: string, objectId: string) {
    const post = await this.lainPost(`a post for ${file}`, [objectId]);
    await this.deliver(rewrite(readFixture(file), post.replacements));
    const notification = await eventually(
      async () => (await this.notificationsOf('favourite')).find((n) => n.status?.id === post.id),
      `the favourite of ${file}`,
    );
    return { post, notification };
  }

  /** A post in lain's home timeline, once it is there. */
  inHome(uri: string) {
    return eventually(
      async () => (await this.lain.client.v1.timelines.home.list()).find((s) => s.uri === uri),
      `${uri} in home`,
    );
  }

  /** lain follows a peer's account, looked up by its handle; the peer accepts. */
  async follow(acct: string): Promise<string> {
    const account = await this.lain.client.v1.accounts.lookup({ acct });
    await this.lain.client.v1.accounts.$select(account.id).follow();
    await eventually(
      async () => (await this.lain.client.v1.accounts.relationships.fetch({ id: [account.id] }))[0].following,
      `lain follows ${acct}`,
    );
    return account.id;
  }

  /** A post of a peer's actor that lain follows, delivered as recorded: the status in lain's home. */
  async postOfFollowed(actor: { id: string; file: string; acct: string }, payload: string, uri: string) {
    await this.peers.actor(actor.id, actor.file);
    await this.follow(actor.acct);
    await this.deliver(readFixture(payload));
    return this.inHome(uri);
  }
}

/** A CorpusHome started before the file's tests and closed after them. */
export function useCorpusHome(): CorpusHome {
  return useNetworkFixture(new CorpusHome());
}

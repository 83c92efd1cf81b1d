import { fallbackContextReads } from '../loaders.ts';
import { listen, rawPost, signedBy, type Target } from './inbox-clients.ts';
import { createTestNetwork, type TestInstance, type TestNetwork, useNetworkFixture } from './test-network.ts';

/*
 * The pair the inbox intake tests replay deliveries on: a.test (alice), whose inbox is reached over a real socket,
 * and b.test (bob), whose key signs what is posted to it.
 */

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
export const BOB = 'https://b.test/users/bob';
/** A JSON-LD context no preloaded set has: its reads (as the fallback context) count Fedify's JSON-LD work on a body. */
export const COUNTED_CONTEXT = 'https://contexts.test/extra.jsonld';
/** Fedify's JSON-LD reads of COUNTED_CONTEXT (and of any other context it fetched) so far. */
export const contextReads = () => fallbackContextReads.count;

export class IntakePair {
  net!: TestNetwork;
  a!: TestInstance;
  b!: TestInstance;
  aSocket!: Target;

  async start(): Promise<void> {
    this.net = createTestNetwork();
    this.a = await this.net.add('a.test');
    this.b = await this.net.add('b.test');
    await this.a.createUser('alice');
    await this.b.createUser('bob');
    this.aSocket = await listen(this.a);
  }

  /** Headers signing `body` for `url` as bob's server does. */
  signedByBob(url: string, body: string): Promise<Record<string, string>> {
    return signedBy(this.b, 'bob', url, body);
  }

  /** A POST to a.test over its socket (see rawPost). */
  post(path: string, headers: Record<string, string>, body: string | null, length?: number) {
    return rawPost(this.aSocket, path, headers, body, length);
  }
}

/** An IntakePair started before the file's tests and closed after them. */
export function useIntakePair(): IntakePair {
  return useNetworkFixture(new IntakePair());
}

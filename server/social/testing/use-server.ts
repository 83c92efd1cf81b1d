import { afterAll, beforeAll } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from './harness.ts';

/** A test file's social server and the users made on it, each under its name. */
export type ServerWithUsers<N extends string> = { server: SocialTestServer } & Record<N, TestUser>;

/**
 * A whole Homeport (startSocialTestServer) for a test file's tests with a user for each of `names`: made before
 * them (before the file's own beforeAll), closed after them.
 */
export function useSocialTestServer<N extends string>(...names: N[]): ServerWithUsers<N> {
  const fixture = {} as ServerWithUsers<N>;
  beforeAll(async () => {
    fixture.server = await startSocialTestServer();
    const users = await Promise.all(names.map((name) => fixture.server.createUser(name)));
    for (const [i, name] of names.entries()) (fixture as Record<N, TestUser>)[name] = users[i];
  });
  afterAll(async () => {
    await fixture.server?.close();
  });
  return fixture;
}

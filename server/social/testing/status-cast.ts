import { afterAll, beforeAll } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from './harness.ts';

/** The statuses API tests' cast on one running Homeport: bob and carol follow alice; dave follows nobody. */
export interface StatusCast {
  server: SocialTestServer;
  alice: TestUser;
  bob: TestUser;
  carol: TestUser;
  dave: TestUser;
}

/** Starts the cast before the file's tests (filled in by then) and closes its server after them. */
export function useStatusCast(): StatusCast {
  const cast = {} as StatusCast;
  beforeAll(async () => {
    const server = await startSocialTestServer();
    cast.server = server;
    [cast.alice, cast.bob, cast.carol, cast.dave] = await Promise.all(
      ['alice', 'bob', 'carol', 'dave'].map((name) => server.createUser(name)),
    );
    await server.masto(cast.bob.token).v1.accounts.$select(cast.alice.accountId).follow();
    await server.masto(cast.carol.token).v1.accounts.$select(cast.alice.accountId).follow();
  });
  afterAll(async () => {
    await cast.server?.close();
  });
  return cast;
}

/** A JSON request to `server` as a token's holder (or none), with more headers: its status, body and headers. */
export async function jsonRequest(
  server: SocialTestServer,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const h: Record<string, string> = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await server.fetch(`${server.url}${path}`, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** A social server with four users for the streaming tests, and helpers to collect and wait for what streams send. */
import type { mastodon } from 'masto';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';
import { startSocialTestServer, type SocialTestServer, type TestUser } from './harness.ts';
import { validateResponse } from './openapi.ts';

export interface StreamingWorld {
  server: SocialTestServer;
  alice: TestUser;
  bob: TestUser;
  carol: TestUser;
  dave: TestUser;
  /** The streaming base URL the instance document gives. */
  streamingUrl: string;
}

/** Started before the file's tests (bob follows alice), stopped after; each test starts with no connection left. */
export function useStreamingWorld(): StreamingWorld {
  const world = {} as StreamingWorld;
  beforeAll(async () => {
    const server = await startSocialTestServer();
    world.server = server;
    [world.alice, world.bob, world.carol, world.dave] = await Promise.all(
      ['alice', 'bob', 'carol', 'dave'].map((name) => server.createUser(name)),
    );
    await server.masto(world.bob.token).v1.accounts.$select(world.alice.accountId).follow();
    world.streamingUrl = (await server.masto(world.bob.token).v2.instance.fetch()).configuration.urls.streaming;
  });
  afterAll(async () => {
    await world.server?.close();
  });
  // Closing is asynchronous: wait for the connections of the test before the next one.
  afterEach(async () => {
    await until(() => world.server.social.streaming.stats().connections === 0, 'the connections of the test to close');
  });
  return world;
}

export interface Received {
  stream: string[];
  event: string;
  payload: unknown;
}

/** Collects the events of a masto.js subscription in the background. */
export function collect(subscription: mastodon.streaming.Subscription): Received[] {
  const received: Received[] = [];
  void (async () => {
    try {
      for await (const e of subscription) received.push(e as unknown as Received);
    } catch {
      // closed
    }
  })();
  return received;
}

export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const ofEvent = (list: Received[], event: string) => list.filter((e) => e.event === event);

/**
 * Waits until each list holds an `event` (with payload id `id`, when given). What a test then says is absent
 * relies on order: a socket gets the events of one change in one go, and later changes after them.
 */
export async function received(lists: Received[][], event: string, id?: string): Promise<void> {
  await until(
    () =>
      lists.every((list) =>
        ofEvent(list, event).some((e) => id === undefined || (e.payload as { id: string }).id === id),
      ),
    `${event}${id ? ` ${id}` : ''} on ${lists.length} stream(s)`,
  );
}

export function expectShapes(
  frames: { event: string; payload?: string }[],
  event: string,
  path: (json: { id: string }) => string,
): number {
  const payloads = frames.filter((f) => f.event === event).map((f) => JSON.parse(f.payload!) as { id: string });
  for (const json of payloads) expect(validateResponse('GET', path(json), 200, json).checked).toBe(true);
  return payloads.length;
}

/** Waits until the server holds `n` subscriptions (clients connect and subscribe asynchronously). */
export async function subscribed(server: SocialTestServer, n: number): Promise<void> {
  await until(() => server.social.streaming.stats().subscriptions >= n, `${n} subscriptions`);
}

/** A raw WebSocket subscription: payloads exactly as sent (masto.js hands them over camel-cased). */
export async function rawSubscription(
  streamingUrl: string,
  token: string,
  stream: string,
): Promise<{ frames: { stream: string[]; event: string; payload?: string }[]; close(): void }> {
  const ws = new WebSocket(`${streamingUrl}/api/v1/streaming?stream=${encodeURIComponent(stream)}`, [token]);
  const frames: { stream: string[]; event: string; payload?: string }[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(data.toString())));
  await new Promise((r) => ws.on('open', r));
  return { frames, close: () => ws.close() };
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll } from 'vitest';
import { createHttpServer } from '../../../http/index.ts';
import { createLogger, LogRing } from '../../../logger.ts';
import type { PreviewCardOptions } from '../../cards/index.ts';
import type { ImportWorkerOptions } from '../../domain/import-worker.ts';
import type { InboxLimits } from '../inbox-limits.ts';
import { openSocial, type Social } from '../../social.ts';

/*
 * Several Homeport social servers in one process, each under its own https host name (a.test, b.test…),
 * reached through a fetch that routes by host to each server's fastify instance (inject: no sockets, DNS or
 * TLS). Everything else is real: WebFinger, actor documents, HTTP signatures with Digest, the SQLite queue.
 * Tests and the delivery benchmark use it.
 */

export interface TestInstance {
  host: string;
  url: string;
  dir: string;
  social: Social;
  http: FastifyInstance;
  /** Replaces this instance's answer to a request (a failing or vanished inbox); return null to answer normally. */
  intercept: ((req: Request) => Response | null | Promise<Response | null>) | null;
  createUser(username: string, options?: { locked?: boolean }): Promise<NetworkUser>;
  /** Stops the instance; `keepData` leaves its data directory for a restart. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/** A local user of one test instance: its account, a token with every scope, and a masto.js client using it. */
export interface NetworkUser {
  accountId: string;
  token: string;
  client: mastodon.rest.Client;
}

/** How one instance of a test network is started. */
export interface InstanceOptions {
  retryDelayMs?: number;
  dataDir?: string;
  previewCards?: PreviewCardOptions;
  imports?: ImportWorkerOptions;
  /** Bounds of the inbox (small ones to fill it). */
  inbox?: Partial<InboxLimits>;
}

export interface TestNetwork {
  instances: Map<string, TestInstance>;
  /** Starts an instance for `host`; `dataDir` restarts one that was closed with keepData; `previewCards` lets its link cards reach loopback pages. */
  add(host: string, options?: InstanceOptions): Promise<TestInstance>;
  /** Answers every request for `host` with `handler`: a stand-in for another server (recorded payloads' senders). */
  addRemote(host: string, handler: (req: Request) => Response | Promise<Response>): void;
  /** Requests made through the network's fetch (method, URL, status), for assertions. */
  log: { method: string; url: string; status: number }[];
  close(): Promise<void>;
}

/** A host-routing fetch installed as the global fetch until `close` (Fedify and masto.js call the global). */
export function createTestNetwork(): TestNetwork {
  const instances = new Map<string, TestInstance>();
  const log: TestNetwork['log'] = [];
  const remotes = new Map<string, (req: Request) => Response | Promise<Response>>();
  const original = globalThis.fetch;
  const routed: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const remote = remotes.get(url.host);
    if (remote) {
      const response = await remote(request);
      log.push({ method: request.method, url: request.url, status: response.status });
      return response;
    }
    const instance = instances.get(url.host);
    if (!instance) return original(input, init);
    const intercepted = await instance.intercept?.(request);
    if (intercepted) {
      log.push({ method: request.method, url: request.url, status: intercepted.status });
      return intercepted;
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    headers.host = url.host;
    const body =
      request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const res = await instance.http.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers,
      payload: body,
    });
    log.push({ method: request.method, url: request.url, status: res.statusCode });
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v));
    }
    const response = new Response(
      res.statusCode === 204 || res.statusCode === 304 ? null : new Uint8Array(res.rawPayload),
      { status: res.statusCode, headers: out },
    );
    // A redirect must not be followed by the runtime: the router, not the network, resolves hosts.
    Object.defineProperty(response, 'url', { value: request.url });
    return response;
  };
  globalThis.fetch = routed;

  return {
    instances,
    log,
    addRemote(host, handler) {
      remotes.set(host, handler);
    },
    async add(host, options = {}) {
      const dir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `homeport-fed-${host}-`));
      const logger = createLogger({
        level: process.env.HOMEPORT_TEST_LOG ?? 'warn',
        toConsole: Boolean(process.env.HOMEPORT_TEST_LOG),
        ring: new LogRing(200),
      });
      const social = await openSocial({
        dataDir: dir,
        logger,
        domain: host,
        secure: true,
        // Tests poll the API while deliveries travel; the general rate limit would end that.
        generalRateLimit: false,
        federation: {
          allowPrivateAddress: true,
          // Remote fetches go through the host-routing fetch, bounded as in production.
          transport: routed,
          queueIdleMs: 20,
          retryDelayMs: (attempts) => (attempts > 3 ? null : (options.retryDelayMs ?? 30)),
          inbox: options.inbox,
        },
        // Cards only where a test asks for them: the others must not look up the hosts their posts link to.
        previewCards: options.previewCards ?? { enabled: false },
        imports: options.imports,
      });
      const http = await createHttpServer({
        logger,
        rendererDir: null,
        plugins: [{ name: 'social', plugin: social.plugin }],
        allowedHostNames: () => [host],
      });
      await http.ready();
      const url = `https://${host}`;
      const instance: TestInstance = {
        host,
        url,
        dir,
        social,
        http,
        intercept: null,
        async createUser(username, userOptions = {}) {
          const { account } = await social.admin.createAccount({
            username,
            email: `${username}@${host}`,
            password: `pw-${username}-correct-horse`,
            role: 'user',
            confirmed: true,
            approved: true,
          });
          const { token } = social.admin.createToken(username, 'read write follow push');
          const client = createRestAPIClient({ url, accessToken: token });
          if (userOptions.locked) await client.v1.accounts.updateCredentials({ locked: true });
          return { accountId: account.id, token, client };
        },
        async close(closeOptions = {}) {
          if (instances.get(host) === instance) instances.delete(host);
          await http.close();
          await social.close();
          if (!closeOptions.keepData) fs.rmSync(dir, { recursive: true, force: true });
        },
      };
      instances.set(host, instance);
      return instance;
    },
    async close() {
      for (const instance of [...instances.values()]) await instance.close();
      globalThis.fetch = original;
    },
  };
}

/** Waits until `check` returns a value other than null/undefined/false (deliveries are asynchronous). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  what: string,
  attempts = 200,
): Promise<NonNullable<T>> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      const value = await check();
      if (value !== null && value !== undefined && value !== false) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

/** A request to an instance's API as `user`, for routes masto.js does not know (Homeport's own). */
export async function apiCall(
  instance: TestInstance,
  user: NetworkUser,
  method: string,
  path: string,
  body?: object,
): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(`${instance.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${user.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON (a CSV export) */
  }
  return { status: res.status, text, json };
}

/** `follower` follows `acct` (user@host) and waits until their server says so; the id it has of `acct`. */
export async function follow(follower: NetworkUser, acct: string): Promise<string> {
  const id = (await follower.client.v1.accounts.lookup({ acct })).id;
  await follower.client.v1.accounts.$select(id).follow();
  await eventually(
    async () => (await follower.client.v1.accounts.relationships.fetch({ id: [id] }))[0].following,
    `the follow of ${acct}`,
  );
  return id;
}

/**
 * The usual starting point of two-server tests: a.test and b.test on a new network, alice on a and bob on b
 * following each other, with the id each has of the other.
 */
export async function followingPair(): Promise<{
  net: TestNetwork;
  a: TestInstance;
  b: TestInstance;
  alice: NetworkUser;
  bob: NetworkUser;
  bobOnA: string;
  aliceOnB: string;
}> {
  const net = createTestNetwork();
  const a = await net.add('a.test');
  const b = await net.add('b.test');
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const [bobOnA, aliceOnB] = await Promise.all([follow(alice, 'bob@b.test'), follow(bob, 'alice@a.test')]);
  return { net, a, b, alice, bob, bobOnA, aliceOnB };
}

/** A followingPair for a test file's tests (see useFollowingPair). */
export class FollowingPair {
  net!: TestNetwork;
  a!: TestInstance;
  b!: TestInstance;
  alice!: NetworkUser;
  bob!: NetworkUser;
  bobOnA!: string;
  aliceOnB!: string;

  async start(): Promise<void> {
    Object.assign(this, await followingPair());
  }
}

/** A followingPair set up before the file's tests (before its own beforeAll) and closed after them. */
export function useFollowingPair(): FollowingPair {
  return useNetworkFixture(new FollowingPair());
}

/** A fixture of a test file on its own network: started before the file's tests, its network closed after them. */
export function useNetworkFixture<T extends { start(): Promise<void>; net?: TestNetwork }>(fixture: T): T {
  beforeAll(() => fixture.start());
  afterAll(async () => {
    await fixture.net?.close();
  });
  return fixture;
}

/** The servers of useServers, by the name before `.test`, and their network. */
export type Servers<K extends string> = { net: TestNetwork } & Record<K, TestInstance>;

/**
 * A test file's own network with one server per key, `<key>.test`, started with its options in the key order
 * before the file's tests (before its own beforeAll, where it creates its users) and closed after them.
 */
export function useServers<K extends string>(options: Record<K, InstanceOptions>): Servers<K> {
  const servers = {
    async start() {
      const net = createTestNetwork();
      Object.assign(servers, { net });
      for (const [key, instanceOptions] of Object.entries<InstanceOptions>(options)) {
        Object.assign(servers, { [key]: await net.add(`${key}.test`, instanceOptions) });
      }
    },
  };
  return useNetworkFixture(servers) as unknown as Servers<K>;
}

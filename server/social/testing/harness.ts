import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';
import { createRestAPIClient, type mastodon } from 'masto';
import megalodonModule from 'megalodon';
import { startHomeport, type Homeport } from '../../index.ts';
import { createHttpServer } from '../../http/index.ts';
import { createLogger, LogRing } from '../../logger.ts';
import type { SocialAdmin } from '../admin.ts';
import { openSocial, type OpenSocialOptions, type Social } from '../social.ts';
import { OpenApiRecorder, validateAxios, validatingFetch } from './openapi.ts';

/*
 * Test harness for the social server: a real Homeport (or, when a test needs its own clock, the social
 * server alone on a real HTTP listener) in a temporary directory, real masto.js and megalodon clients whose
 * every JSON response is validated against the Mastodon OpenAPI document, and helpers to make users.
 */

type MegalodonGenerator = typeof import('megalodon').default;
// megalodon's ESM build exports the CommonJS module object as default.
const generator = ((megalodonModule as unknown as { default?: MegalodonGenerator }).default ??
  megalodonModule) as MegalodonGenerator;

export type MegalodonClient = ReturnType<MegalodonGenerator>;

export interface TestUser {
  username: string;
  email: string;
  password: string;
  accountId: string;
  token: string;
}

export interface SocialTestServer {
  url: string;
  dir: string;
  social: Social;
  admin: SocialAdmin;
  recorder: OpenApiRecorder;
  /** fetch that validates JSON responses (also installed as the global fetch, which masto.js uses). */
  fetch: typeof fetch;
  /** One JSON request through the validating fetch: a token (or none), a method, a path and an optional JSON body. */
  call(
    token: string | null,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** A confirmed, approved local user with a token of the Homeport application. */
  createUser(
    username: string,
    options?: { role?: string; scopes?: string; confirmed?: boolean; approved?: boolean },
  ): Promise<TestUser>;
  masto(token?: string): mastodon.rest.Client;
  megalodon(token?: string): MegalodonClient;
  /** An axios instance validating every JSON response (for megalodon's detector). */
  axios(): ReturnType<typeof axios.create>;
  close(): Promise<void>;
}

function build(
  url: string,
  dir: string,
  social: Social,
  closeServer: () => Promise<void>,
  keepData = false,
): SocialTestServer {
  const recorder = new OpenApiRecorder();
  const original = globalThis.fetch;
  const checkedFetch = validatingFetch(recorder, original);
  globalThis.fetch = checkedFetch;
  const makeAxios = () => {
    const instance = axios.create({ timeout: 20_000 });
    validateAxios(instance, recorder);
    return instance;
  };
  return {
    url,
    dir,
    social,
    admin: social.admin,
    recorder,
    fetch: checkedFetch,
    async call(token, method, urlPath, body) {
      const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await checkedFetch(`${url}${urlPath}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    async createUser(username, options = {}) {
      const email = `${username}@example.org`;
      const password = `pw-${username}-correct-horse`;
      const { account } = await social.admin.createAccount({
        username,
        email,
        password,
        role: options.role ?? 'user',
        confirmed: options.confirmed ?? true,
        approved: options.approved ?? true,
      });
      const { token } = social.admin.createToken(username, options.scopes ?? 'read write follow push');
      return { username, email, password, accountId: account.id, token };
    },
    masto: (token) => createRestAPIClient({ url, accessToken: token }),
    megalodon: (token) => generator('mastodon', url, token ?? null, 'homeport-tests', makeAxios()),
    axios: makeAxios,
    async close() {
      if (process.env.HOMEPORT_OPENAPI_REPORT) {
        process.stderr.write(
          `OpenAPI: ${recorder.checked} bodies validated; without schema: ${JSON.stringify([...recorder.unchecked.entries()], null, 1)}\n`,
        );
      }
      globalThis.fetch = original;
      await closeServer();
      if (!keepData) fs.rmSync(dir, { recursive: true, force: true });
      // A response the document has no schema for passes no check: only the known ones may stay unchecked.
      const unexpected = recorder.unexpectedUnchecked();
      if (unexpected.length > 0)
        throw new Error(
          `responses without an OpenAPI schema to check them against (add a SUPPLEMENTS entry, or KNOWN_UNCHECKED knowingly):\n${unexpected.join('\n')}`,
        );
    },
  };
}

/** A whole Homeport on free loopback ports; `config` sets more of its configuration (a public URL…). */
export async function startSocialTestServer(
  config: Partial<Parameters<typeof startHomeport>[0]> = {},
): Promise<SocialTestServer & { hp: Homeport }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-social-'));
  const hp = await startHomeport({
    dataDir: dir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
    logLevel: 'warn',
    ...config,
  });
  return { ...build(hp.httpUrl, dir, hp.social, () => hp.close()), hp };
}

/**
 * The social server alone with an injected clock, on a real HTTP listener (for expiry tests: no sleeping).
 * `dataDir` reopens an existing data directory (a restart); `keepData` leaves it in place when closing.
 */
export async function startSocialWithClock(
  now: () => number,
  options: { dataDir?: string; keepData?: boolean; social?: Partial<OpenSocialOptions> } = {},
): Promise<SocialTestServer> {
  const dir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-social-clock-'));
  const logger = createLogger({ level: 'warn', toConsole: false, ring: new LogRing(100) });
  // The due-jobs timer looks often, so moving the clock is enough for it to act (no job is run by hand).
  // Link cards only where a test asks for them: the others must not look up the hosts their posts link to.
  const social = await openSocial({
    dataDir: dir,
    logger,
    domain: 'localhost:0',
    now,
    dueJobsMaxWaitMs: 50,
    previewCards: { enabled: false },
    ...options.social,
  });
  const http = await createHttpServer({
    logger,
    rendererDir: null,
    plugins: [{ name: 'social', plugin: social.plugin }],
  });
  await http.listen({ host: '127.0.0.1', port: 0 });
  const port = (http.server.address() as { port: number }).port;
  social.setDomain(`127.0.0.1:${port}`);
  return build(
    `http://127.0.0.1:${port}`,
    dir,
    social,
    async () => {
      await http.close();
      await social.close();
    },
    options.keepData,
  );
}

/** Registers an OAuth application through the API and returns its credentials. */
export async function registerApp(
  server: SocialTestServer,
  options: { scopes?: string; redirectUris?: string | string[] } = {},
) {
  const client = server.masto();
  return client.v1.apps.create({
    clientName: 'Homeport tests',
    redirectUris: (options.redirectUris ?? 'urn:ietf:wg:oauth:2.0:oob') as string,
    scopes: options.scopes ?? 'read write follow push',
    website: 'https://example.org/app',
  });
}

/** A client-credentials token for an application. */
export async function appToken(
  server: SocialTestServer,
  app: { clientId?: string | null; clientSecret?: string | null },
  scope = 'read write follow push',
): Promise<string> {
  const res = await server.fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope,
    }),
  });
  if (res.status !== 200) throw new Error(`client credentials failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionCounter, namespaceContext, report } from '../../security/testing/netns-child.ts';
import { hostileActors, type Json } from './testing/hostile-actors.ts';
import { startHostilePeer } from './testing/hostile-peer.ts';
import { sampleMemory, startServeProcess, type ServeProcess } from './testing/serve-process.ts';

/*
 * Inside the namespace of hostile-content.netns.test.ts, the private-address guard ON (a `homeport serve` as a
 * user runs it): hostile.example on 1.2.3.4 (https, test-CA certificate) is both the bomb-serving peer and a
 * server whose actors sign what they send. Replays issue 32's findings 7 (thousands of attachments, tags by
 * address), 8 (media on loopback and private hosts, SVG avatars), 6 (a card page of a million nested <div>),
 * 9 (a flood of signed Creates) and 3 (an import the server does not survive, twice), in that order, each
 * measured: the server's memory and CPU, and an ordinary API request made over and over meanwhile.
 */

/** What each attack cost the server, and what ordinary requests got meanwhile. */
export interface Measured {
  rssBefore: number;
  rssPeak: number;
  cpuSeconds: number;
  /** The status of each home-timeline request made during the attack (or why it got none). */
  probes: (number | string)[];
}

export interface MediaView {
  type: string;
  url: string | null;
  remote_url: string | null;
  description?: string | null;
}

export interface ImportView {
  state: string;
  total_items: number;
  failed_items: number;
  failures: { row: number; data: { acct: string }; error: string }[];
}

export interface HostileContentReport {
  attachments: Measured & {
    /** Statuses of the Creates of 5,000 and 1,000 attachments, and the reason given for the second. */
    refused: { status: number; text: string }[];
    kept: MediaView[];
    tags: string[];
    /** Requests hostile.example got for tags and attachments given by address. */
    fetchedByAddress: string[];
  };
  media: Measured & {
    attachments: MediaView[];
    /** Everything the API gives of the post, to search for private addresses. */
    shown: string;
    avatars: Record<string, { avatar: string; avatar_static: string; header: string; header_static: string }>;
    /** Connections the listeners on 127.0.0.1:80 and 10.1.2.3:443 (named by the attachments) got. */
    victimConnections: number;
  };
  card: Measured & { title: string | null; pageRequests: number };
  flood: Measured & {
    sent: number;
    statuses: Record<string, number>;
    retryAfter: string[];
    /** Deliveries refused before one was taken again, after the flood. */
    refusedAfter: number;
    recovered: boolean;
  };
  imports: Measured & { killed: ImportView; bounded: ImportView; dripLookups: number };
  publicUrl: string;
  exited: string | null;
}

const HOST = 'hostile.example';
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** Mastodon's context for what the posts carry (Hashtag is in its extension, not in ActivityStreams'). */
const CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  { toot: 'http://joinmastodon.org/ns#', Hashtag: 'as:Hashtag' },
];
/** Pause between two ordinary requests of the probe (pacing, not synchronisation). */
const PROBE_PAUSE_MS = 200;
/** An ordinary request that has not answered after this failed (the issue saw 3.1 s; this only stops a hang). */
const PROBE_DEADLINE_MS = 15_000;

const { certificates } = namespaceContext();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-netns-content-'));
const dataDir = path.join(dir, 'data');
const origin = `https://${HOST}`;
const actors = hostileActors(origin);
const peer = await startHostilePeer({
  address: '1.2.3.4',
  port: 443,
  tls: certificates[HOST],
  host: HOST,
  fallback: actors.handler,
});
const victims = await Promise.all([connectionCounter('127.0.0.1', 80), connectionCounter('10.1.2.3', 443)]);
let server: ServeProcess = await startServeProcess({ dataDir });
const token = server.createUser('alice');
const ALICE = `${server.url}/users/alice`;
const INBOX = `${server.url}/inbox`;

async function api(method: string, route: string, body?: object): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json() };
}

/** Polls until `check` gives a value; fails after `attempts` tries 200 ms apart. */
async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, attempts = 600): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check().catch(() => null);
    if (value) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`never happened: ${what}`);
}

/** Home-timeline requests one after another until stopped: what each got. */
function probe(): { stop(): Promise<(number | string)[]> } {
  let stopped = false;
  const got: (number | string)[] = [];
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${server.url}/api/v1/timelines/home?limit=5`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(PROBE_DEADLINE_MS),
        });
        await res.arrayBuffer();
        got.push(res.status);
      } catch (err) {
        got.push((err as Error).name);
      }
      if (!stopped) await new Promise((r) => setTimeout(r, PROBE_PAUSE_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return got;
    },
  };
}

async function measured<T extends object>(attack: () => Promise<T>): Promise<T & Measured> {
  const rssBefore = server.rss() ?? 0;
  const cpuBefore = server.cpuSeconds();
  const memory = sampleMemory(server);
  const probes = probe();
  try {
    const result = await attack();
    const cpuSeconds = server.cpuSeconds() - cpuBefore;
    return { ...result, rssBefore, rssPeak: memory.peak(), cpuSeconds, probes: await probes.stop() };
  } finally {
    memory.stop();
    await probes.stop();
  }
}

let posts = 0;
/** A public Create of a Note by `actor` mentioning alice, with `extra` properties on the Note. */
function createNote(actor: string, extra: Json = {}): { uri: string; activity: Json } {
  const uri = `${actor}/statuses/${++posts}`;
  const note = {
    id: uri,
    type: 'Note',
    attributedTo: actor,
    content: `<p>post ${posts} for <a href="${ALICE}">@alice</a></p>`,
    to: [PUBLIC],
    cc: [ALICE],
    ...extra,
    tag: [{ type: 'Mention', href: ALICE, name: '@alice' }, ...(extra.tag ?? [])],
  };
  return {
    uri,
    activity: {
      '@context': CONTEXT,
      id: `${uri}/activity`,
      type: 'Create',
      actor,
      to: [PUBLIC],
      cc: [ALICE],
      object: note,
    },
  };
}

async function deliver(activity: Json): Promise<{ status: number; text: string }> {
  const res = await fetch(await actors.signed(INBOX, activity));
  return { status: res.status, text: await res.text() };
}

/** The status alice was notified of, once the mention arrived. */
function mentioned(uri: string): Promise<any> {
  return until(`the mention of ${uri}`, async () => {
    const { json } = await api('GET', '/api/v1/notifications?types[]=mention&limit=40');
    return (json as { status?: { uri: string } }[]).find((n) => n.status?.uri === uri)?.status;
  });
}

const image = (url: string, extra: Json = {}) => ({ type: 'Document', mediaType: 'image/png', url, ...extra });
const mediaView = (m: MediaView): MediaView => ({
  type: m.type,
  url: m.url,
  remote_url: m.remote_url,
  description: m.description,
});

const FOLLOWS_HEADER = 'Account address,Show boosts,Notify on new posts,Languages';

/** Starts a CSV import of follows of `modes` on the hostile server; its id. */
async function startImport(modes: string[]): Promise<string> {
  const csv = [FOLLOWS_HEADER, ...modes.map((mode) => `${mode}@${HOST},true,false,`)].join('\n');
  const { status, json } = await api('POST', '/api/v1/homeport/imports', { type: 'following_accounts', data: csv });
  if (status !== 202) throw new Error(`the import got ${status}: ${JSON.stringify(json)}`);
  return json.id;
}

function finishedImport(id: string): Promise<ImportView> {
  return until(`import ${id} finished`, async () => {
    const { json } = await api('GET', `/api/v1/homeport/imports/${id}`);
    return json.state === 'finished' && (json as ImportView);
  });
}

/** The attacks, in order; the server is restarted by the last one. */
async function attacks(): Promise<Omit<HostileContentReport, 'publicUrl' | 'exited'>> {
  // Finding 7: 5,000 attachments (past the body limit), 1,000 in 80 KB (past the bound on objects); then a post
  // within bounds whose tags and first attachment are bare addresses on the hostile server.
  const hoarder = actors.actor('hoarder');
  const attachments = await measured(async () => {
    const refused = [];
    for (const count of [5_000, 1_000]) {
      const attachment = Array.from({ length: count }, (_, i) => image(`${origin}/m/${i}.png`));
      refused.push(await deliver(createNote(hoarder, { attachment }).activity));
    }
    const post = createNote(hoarder, {
      attachment: [
        `${origin}/attachments/bare`,
        ...Array.from({ length: 40 }, (_, i) => image(`${origin}/media/${i}.png`, { name: `picture ${i}` })),
      ],
      tag: [
        { type: 'Hashtag', href: `${origin}/tags/ducks`, name: '#ducks' },
        ...Array.from({ length: 1_000 }, (_, i) => `${origin}/tags/${i}`),
      ],
    });
    const delivered = await deliver(post.activity);
    if (delivered.status !== 202) throw new Error(`the post within bounds got ${delivered.status}: ${delivered.text}`);
    const status = await mentioned(post.uri);
    return {
      refused,
      kept: (status.media_attachments as MediaView[]).map(mediaView),
      tags: (status.tags as { name: string }[]).map((t) => t.name),
      fetchedByAddress: peer.visits.map((v) => v.path).filter((p) => /^\/(tags|attachments)\//.test(p)),
    };
  });

  // Finding 8: attachments on loopback, private and local-network hosts, SVG; SVG and private avatars.
  const painter = actors.actor('painter');
  const media = await measured(async () => {
    const post = createNote(painter, {
      attachment: [
        image('http://127.0.0.1/api/v1/admin/accounts'),
        image('https://10.1.2.3/camera.png'),
        image('https://[::1]/x.png'),
        image('https://localhost/x.png'),
        image('https://router/admin.png'),
        image('https://printer.local/scan.png'),
        { type: 'Document', mediaType: 'image/svg+xml', url: `${origin}/media/drawing.svg` },
        { type: 'Image', url: `${origin}/media/vector.svg` },
        image(`${origin}/media/photo.png`),
      ],
    });
    const delivered = await deliver(post.activity);
    if (delivered.status !== 202) throw new Error(`the media post got ${delivered.status}: ${delivered.text}`);
    const status = await mentioned(post.uri);
    const svg = (kind: string) => ({ type: 'Image', mediaType: 'image/svg+xml', url: `${origin}/${kind}/vector.svg` });
    const profiles = {
      vector: actors.actor('vector', { icon: svg('avatars'), image: svg('headers') }),
      insider: actors.actor('insider', {
        icon: { type: 'Image', mediaType: 'image/png', url: 'http://10.1.2.3/avatar.png' },
        image: { type: 'Image', mediaType: 'image/png', url: 'http://127.0.0.1/header.png' },
      }),
    };
    const avatars: HostileContentReport['media']['avatars'] = {};
    for (const [name, actor] of Object.entries(profiles)) {
      const note = createNote(actor);
      await deliver(note.activity);
      const { account } = await mentioned(note.uri);
      avatars[name] = {
        avatar: account.avatar,
        avatar_static: account.avatar_static,
        header: account.header,
        header_static: account.header_static,
      };
    }
    return {
      attachments: (status.media_attachments as MediaView[]).map(mediaView),
      shown: JSON.stringify((await api('GET', `/api/v1/statuses/${status.id}`)).json),
      avatars,
      victimConnections: victims.reduce((n, v) => n + v.connections, 0),
    };
  });

  // Finding 6: a link to a page of a million nested <div> (the card reader reads its first megabyte).
  actors.page(
    '/nested',
    'text/html; charset=utf-8',
    `<!doctype html><html><head><meta property="og:title" content="A nested page"></head><body>${'<div>'.repeat(1_000_000)}`,
  );
  const linker = actors.actor('linker');
  const card = await measured(async () => {
    const link = `${origin}/nested`;
    const post = createNote(linker, {
      content: `<p>look: <a href="${link}">${link}</a> <a href="${ALICE}">@alice</a></p>`,
    });
    const delivered = await deliver(post.activity);
    if (delivered.status !== 202) throw new Error(`the linking post got ${delivered.status}: ${delivered.text}`);
    const { id } = await mentioned(post.uri);
    const title = await until('the nested page’s card', async () => {
      const { json } = await api('GET', `/api/v1/statuses/${id}`);
      return json.card?.title as string | undefined;
    });
    return { title, pageRequests: peer.visits.filter((v) => v.path === '/nested').length };
  });

  // Finding 9: waves of signed Creates sent all at once, then one more until one is taken.
  const FLOOD_WAVES = 4;
  const FLOOD_WAVE = 150;
  const flooder = actors.actor('flooder');
  const filler = 'x'.repeat(2_000);
  const floodRequests = await Promise.all(
    Array.from({ length: FLOOD_WAVES * FLOOD_WAVE }, () =>
      actors.signed(INBOX, createNote(flooder, { content: `<p>${filler} <a href="${ALICE}">@alice</a></p>` }).activity),
    ),
  );
  const flood = await measured(async () => {
    const statuses: Record<string, number> = {};
    const retryAfter = new Set<string>();
    for (let wave = 0; wave < FLOOD_WAVES; wave++) {
      const answers = await Promise.all(
        floodRequests.slice(wave * FLOOD_WAVE, (wave + 1) * FLOOD_WAVE).map(async (request) => {
          const res = await fetch(request);
          await res.arrayBuffer();
          return res;
        }),
      );
      for (const res of answers) {
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 503) retryAfter.add(String(res.headers.get('retry-after')));
      }
    }
    // A peer delivers again later; once the queue has room, it is taken.
    let refusedAfter = 0;
    const last = createNote(flooder);
    const recovered = await until('a delivery taken after the flood', async () => {
      const { status } = await deliver(last.activity);
      if (status !== 202) refusedAfter++;
      return status === 202;
    });
    await mentioned(last.uri);
    return { sent: floodRequests.length, statuses, retryAfter: [...retryAfter], refusedAfter, recovered };
  });

  // Finding 3: an import of one row whose lookup the server does not survive (SIGKILL while the drip holds it,
  // as the bombs of the issue killed it), twice; then one of rows naming the bombs, the endless and big bodies.
  const dripLookups = () => peer.visits.filter((v) => v.mode === 'drip').length;
  const dripsBefore = dripLookups();
  const killing = await startImport(['drip']);
  const port = Number(new URL(server.url).port);
  for (const round of [1, 2]) {
    await until(`lookup ${round} of the drip row under way`, async () => dripLookups() === dripsBefore + round);
    await server.stop('SIGKILL');
    server = await startServeProcess({ dataDir, port });
  }
  const imports = await measured(async () => {
    const bounded = await startImport(['gzip-bomb', 'actor-brotli-bomb', 'endless', 'actor-endless', 'big-actor']);
    return {
      killed: await finishedImport(killing),
      bounded: await finishedImport(bounded),
      dripLookups: dripLookups() - dripsBefore,
    };
  });

  return { attachments, media, card, flood, imports };
}

let result: Omit<HostileContentReport, 'publicUrl' | 'exited'>;
let exited: string | null = null;
try {
  result = await attacks();
  exited = server.exited;
} finally {
  // Also when an attack threw: a server left running would keep the namespace (and the test) waiting.
  await server.stop();
  await peer.close();
  await Promise.all(victims.map((v) => v.close()));
  fs.rmSync(dir, { recursive: true, force: true });
}
await report({ ...result, publicUrl: server.url, exited } satisfies HostileContentReport);

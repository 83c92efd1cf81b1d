import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionCounter, namespaceContext, report } from '../../security/testing/netns-child.ts';
import { AttackedServer, type ImportView, type Measured, until } from './testing/attacked-server.ts';
import { image, MASTODON_CONTEXT, mentionCreates } from './testing/activities.ts';
import { hostileActors, type Json } from './testing/hostile-actors.ts';
import { startHostilePeer } from './testing/hostile-peer.ts';

/*
 * Inside the namespace of hostile-content.netns.test.ts, the private-address guard ON (a `homeport serve` as a
 * user runs it): hostile.example on 1.2.3.4 (https, test-CA certificate) is both the bomb-serving peer and a
 * server whose actors sign what they send. Replays issue 32's findings 7 (thousands of attachments, tags by
 * address), 8 (media on loopback and private hosts, SVG avatars), 6 (a card page of a million nested <div>),
 * 9 (a flood of signed Creates) and 3 (an import the server does not survive, twice), in that order, each
 * measured (memory, CPU, an ordinary request over and over meanwhile). An attack that throws is reported as
 * such and the next one still runs.
 */

export interface MediaView {
  type: string;
  url: string | null;
  remote_url: string | null;
  description?: string | null;
}

export interface HostileContentReport {
  attachments:
    | (Measured & {
        /** What the Creates of 5,000 and 1,000 attachments got. */
        refused: { status: number; text: string }[];
        kept: MediaView[];
        tags: string[];
        /** Requests hostile.example got for tags and attachments given by address. */
        fetchedByAddress: string[];
      })
    | null;
  media:
    | (Measured & {
        attachments: MediaView[];
        /** Everything the API gives of the post, to search for private addresses. */
        shown: string;
        avatars: Record<string, { avatar: string; avatar_static: string; header: string; header_static: string }>;
        /** Connections the listeners on 127.0.0.1:80 and 10.1.2.3:443 (named by the attachments) got. */
        victimConnections: number;
      })
    | null;
  card: (Measured & { title: string | null; pageRequests: number }) | null;
  flood:
    | (Measured & {
        sent: number;
        statuses: Record<string, number>;
        retryAfter: string[];
        /** Deliveries refused before one was taken again, after the flood. */
        refusedAfter: number;
      })
    | null;
  imports: (Measured & { killed: ImportView; bounded: ImportView; dripLookups: number }) | null;
  deliveries:
    | (Measured & {
        /** Whether the deliveries to an inbox that never answers were given up (their connection closed). */
        hung: { path: string; closed: boolean }[];
        /** Connections to 127.0.0.1:443 and 10.1.2.3:443, where the other two actors' inboxes are. */
        privateConnections: number;
      })
    | null;
  /** Attacks that threw, with why (their part above is null). */
  errors: Record<string, string>;
  publicUrl: string;
  exited: string | null;
}

const HOST = 'hostile.example';
const { certificates } = namespaceContext();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-netns-content-'));
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
const loopbackInbox = await connectionCounter('127.0.0.1', 443);
const server = await AttackedServer.start(path.join(dir, 'data'));
const ALICE = `${server.url}/users/alice`;
const INBOX = `${server.url}/inbox`;

const createNote = mentionCreates({ id: ALICE, mention: '@alice' });

async function deliver(activity: Json): Promise<{ status: number; text: string }> {
  const res = await fetch(await actors.signed(INBOX, activity));
  return { status: res.status, text: await res.text() };
}

/** Delivers `post`, which must be taken; the status alice was notified of. */
async function delivered(post: { uri: string; activity: Json }): Promise<any> {
  const answer = await deliver(post.activity);
  if (answer.status !== 202) throw new Error(`${post.uri} got ${answer.status}: ${answer.text}`);
  return server.mentioned(post.uri);
}

const mediaView = (m: MediaView): MediaView => ({
  type: m.type,
  url: m.url,
  remote_url: m.remote_url,
  description: m.description,
});

const errors: Record<string, string> = {};
/** Runs one attack; one that throws is reported and the next runs. */
async function attack<T>(name: string, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    errors[name] = (err as Error).stack ?? String(err);
    return null;
  }
}

// Finding 7: 5,000 attachments (past the body limit), 1,000 in 80 KB (past the bound on objects); then a post
// within bounds whose tags and first attachment are bare addresses on the hostile server (served, so that a
// server fetching them would get what it asked for).
const hoarder = actors.actor('hoarder');
const TAGS = 1_000;
for (let i = 0; i < TAGS; i++)
  actors.page(
    `/tags/${i}`,
    'application/activity+json',
    JSON.stringify({ '@context': MASTODON_CONTEXT, id: `${origin}/tags/${i}`, type: 'Hashtag', name: `#fetched${i}` }),
  );
actors.page(
  '/attachments/bare',
  'application/activity+json',
  JSON.stringify({
    ...image(`${origin}/media/bare.png`),
    '@context': MASTODON_CONTEXT,
    id: `${origin}/attachments/bare`,
  }),
);
const attachments = await attack('attachments', () =>
  server.measured(async () => {
    const refused = [];
    for (const count of [5_000, 1_000]) {
      const attachment = Array.from({ length: count }, (_, i) => image(`${origin}/m/${i}.png`));
      refused.push(await deliver(createNote(hoarder, { attachment }).activity));
    }
    const status = await delivered(
      createNote(hoarder, {
        attachment: [
          `${origin}/attachments/bare`,
          ...Array.from({ length: 40 }, (_, i) => image(`${origin}/media/${i}.png`, { name: `picture ${i}` })),
        ],
        tag: [
          { type: 'Hashtag', href: `${origin}/tags/ducks`, name: '#ducks' },
          ...Array.from({ length: TAGS }, (_, i) => `${origin}/tags/${i}`),
        ],
      }),
    );
    return {
      refused,
      kept: (status.media_attachments as MediaView[]).map(mediaView),
      tags: (status.tags as { name: string }[]).map((t) => t.name),
      fetchedByAddress: peer.visits.map((v) => v.path).filter((p) => /^\/(tags|attachments)\//.test(p)),
    };
  }),
);

// Finding 8: attachments on loopback, private and local-network hosts, SVG; SVG and private avatars.
const painter = actors.actor('painter');
const svg = (kind: string) => ({ type: 'Image', mediaType: 'image/svg+xml', url: `${origin}/${kind}/vector.svg` });
const profiles = {
  vector: actors.actor('vector', { icon: svg('avatars'), image: svg('headers') }),
  insider: actors.actor('insider', {
    icon: { type: 'Image', mediaType: 'image/png', url: 'http://10.1.2.3/avatar.png' },
    image: { type: 'Image', mediaType: 'image/png', url: 'http://127.0.0.1/header.png' },
  }),
};
const media = await attack('media', () =>
  server.measured(async () => {
    const status = await delivered(
      createNote(painter, {
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
      }),
    );
    const avatars: NonNullable<HostileContentReport['media']>['avatars'] = {};
    for (const [name, actor] of Object.entries(profiles)) {
      const { account } = await delivered(createNote(actor));
      avatars[name] = {
        avatar: account.avatar,
        avatar_static: account.avatar_static,
        header: account.header,
        header_static: account.header_static,
      };
    }
    return {
      attachments: (status.media_attachments as MediaView[]).map(mediaView),
      shown: JSON.stringify((await server.api('GET', `/api/v1/statuses/${status.id}`)).json),
      avatars,
      victimConnections: victims.reduce((n, v) => n + v.connections, 0),
    };
  }),
);

// Finding 6: a link to a page of a million nested <div> (the card reader reads its first megabyte).
actors.page(
  '/nested',
  'text/html; charset=utf-8',
  `<!doctype html><html><head><meta property="og:title" content="A nested page"></head><body>${'<div>'.repeat(1_000_000)}`,
);
const linker = actors.actor('linker');
const card = await attack('card', () =>
  server.measured(async () => {
    const link = `${origin}/nested`;
    const { id } = await delivered(
      createNote(linker, { content: `<p>look: <a href="${link}">${link}</a> <a href="${ALICE}">@alice</a></p>` }),
    );
    const title = await until('the nested page’s card', async () => {
      const { json } = await server.api('GET', `/api/v1/statuses/${id}`);
      return json.card?.title as string | undefined;
    });
    return { title, pageRequests: peer.visits.filter((v) => v.path === '/nested').length };
  }),
);

// Finding 9: waves of signed Creates (signed ahead) sent all at once, then one more until it is taken.
const FLOOD_WAVES = 4;
const FLOOD_WAVE = 150;
const flooder = actors.actor('flooder');
const filler = 'x'.repeat(2_000);
const floodRequests = await Promise.all(
  Array.from({ length: FLOOD_WAVES * FLOOD_WAVE }, () =>
    actors.signed(INBOX, createNote(flooder, { content: `<p>${filler} <a href="${ALICE}">@alice</a></p>` }).activity),
  ),
);
const flood = await attack('flood', () =>
  server.measured(async () => {
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
    // A peer delivers again later: once the queue has room, it is taken.
    let refusedAfter = 0;
    const last = createNote(flooder);
    await until('a delivery taken after the flood', async () => {
      const { status } = await deliver(last.activity);
      if (status !== 202) refusedAfter++;
      return status === 202;
    });
    return { sent: floodRequests.length, statuses, retryAfter: [...retryAfter], refusedAfter };
  }),
);

// Finding 3: an import of one row whose lookup the server does not survive (SIGKILL while the drip holds it,
// as the bombs of the issue killed it), twice; then one of rows naming the bombs, the endless and big bodies.
const dripLookups = () => peer.visits.filter((v) => v.mode === 'drip').length;
const imports = await attack('imports', async () => {
  const dripsBefore = dripLookups();
  const killing = await server.startImport([`drip@${HOST}`]);
  for (const round of [1, 2]) {
    await until(`lookup ${round} of the drip row under way`, async () => dripLookups() === dripsBefore + round);
    await server.crashAndRestart();
  }
  return server.measured(async () => {
    const modes = ['gzip-bomb', 'actor-brotli-bomb', 'endless', 'actor-endless', 'big-actor'];
    const bounded = await server.startImport(modes.map((mode) => `${mode}@${HOST}`));
    return {
      killed: await server.finishedImport(killing),
      bounded: await server.finishedImport(bounded),
      dripLookups: dripLookups() - dripsBefore,
    };
  });
});

// Outgoing deliveries (Fedify's, with the global fetch): alice follows three accounts of the hostile server
// whose inboxes are on a private literal, on a name of 127.0.0.1, and on a path that never answers.
actors.hang('/hang/inbox');
const inboxes = {
  privy: 'https://10.1.2.3/inbox',
  looper: 'https://loopback.example/inbox',
  slowpoke: `${origin}/hang/inbox`,
};
const deliveries = await attack('deliveries', () =>
  server.measured(async () => {
    for (const [name, inbox] of Object.entries(inboxes)) {
      actors.actor(name, { inbox });
      const query = new URLSearchParams({ q: `@${name}@${HOST}`, resolve: 'true', type: 'accounts' });
      const found = (await server.api('GET', `/api/v2/search?${query}`)).json.accounts?.[0];
      if (!found) throw new Error(`${name} was not found`);
      const followed = await server.api('POST', `/api/v1/accounts/${found.id}/follow`);
      if (followed.status !== 200) throw new Error(`following ${name} got ${followed.status}`);
    }
    // Not thrown when it never comes: the connections to private addresses are worth reporting then too.
    await until('the delivery to the inbox that never answers given up', async () =>
      actors.hung.some((h) => h.closed),
    ).catch(() => null);
    return {
      hung: actors.hung.map((h) => ({ ...h })),
      privateConnections: victims[1].connections + loopbackInbox.connections,
    };
  }),
);

const exited = server.process.exitStatus;
await server.process.stop();
await peer.close();
await Promise.all([...victims, loopbackInbox].map((v) => v.close()));
fs.rmSync(dir, { recursive: true, force: true });
await report({
  attachments,
  media,
  card,
  flood,
  imports,
  deliveries,
  errors,
  publicUrl: server.url,
  exited,
} satisfies HostileContentReport);

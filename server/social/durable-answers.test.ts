import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { writeGroupsOf } from '../db/index.ts';
import { startSocialWithClock, type SocialTestServer, type TestUser } from './testing/harness.ts';

/*
 * Group commit seen from clients: many posts at once share commits, each answer comes after its post is
 * committed (a second connection, which sees only committed data, finds it), events are told after the
 * commit, and a write that fails inside its transaction fails alone.
 */

let server: SocialTestServer;
let author: TestUser;
let follower: TestUser;
let refused: TestUser;
/** Reads only what is committed: what a crash would leave. */
let committed: BetterSqlite3.Database;

beforeAll(async () => {
  server = await startSocialWithClock(Date.now);
  [author, follower, refused] = await Promise.all([
    server.createUser('author'),
    server.createUser('follower'),
    server.createUser('refused'),
  ]);
  expect((await server.call(follower.token, 'POST', `/api/v1/accounts/${author.accountId}/follow`)).status).toBe(200);
  committed = new BetterSqlite3(server.social.file, { readonly: true });
});

afterAll(async () => {
  committed?.close();
  await server?.close();
});

const committedTexts = (like: string) =>
  (committed.prepare('SELECT text FROM statuses WHERE text LIKE ?').all(like) as { text: string }[]).map((r) => r.text);

/** Opens `n` keep-alive connections first, so the posts that follow arrive together instead of one per handshake. */
async function warmConnections(n: number): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, () => server.call(author.token, 'GET', '/api/v1/accounts/verify_credentials')),
  );
}

function post(text: string) {
  return server.call(author.token, 'POST', '/api/v1/statuses', { status: text });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('group commit of social writes', () => {
  it('answers many posts at once from shared commits, each after it is on disk; a write failing inside its transaction fails alone', async () => {
    const store = server.social.context.store;
    // A write that fails half-way: the status row is in, then inserting its mention of @refused is refused.
    store.db.exec(
      `CREATE TEMP TRIGGER refuse_mention BEFORE INSERT ON main.mentions WHEN NEW.account_id = ${refused.accountId}
       BEGIN SELECT RAISE(ABORT, 'mention refused by the test'); END`,
    );
    const told: { text: string; committedThen: boolean }[] = [];
    const stop = store.events.on('status.created', ({ status }) => {
      told.push({ text: status.text, committedThen: committedTexts(status.text).length === 1 });
    });
    try {
      const posts = 40;
      await warmConnections(posts + 1);
      const commitsBefore = store.groupsCommitted;
      const answers = await Promise.all([
        ...Array.from({ length: posts / 2 }, (_, i) => post(`together ${i}`)),
        post('together but failing @refused'),
        ...Array.from({ length: posts / 2 }, (_, i) => post(`together ${posts / 2 + i}`)),
      ]);
      const commits = store.groupsCommitted - commitsBefore;
      const failing = answers.splice(posts / 2, 1)[0];
      expect(failing.status).toBe(500);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        // On disk when answered (the answer waited for its group's COMMIT).
        expect(committedTexts(answer.body.content.replace(/<[^>]+>/g, ''))).toHaveLength(1);
      }
      expect(committedTexts('together %')).toHaveLength(posts);
      expect(committedTexts('%failing%')).toEqual([]);
      // Nothing of the failed write is left: no mention, no home-feed entry.
      expect(committed.prepare('SELECT count(*) AS n FROM mentions').get()).toEqual({ n: 0 });
      // Fewer commits than posts: they shared them.
      expect(commits).toBeLessThan(posts);
      // Told once each, after the commit; the failed one never.
      expect(told).toHaveLength(posts);
      expect(told.every((t) => t.committedThen)).toBe(true);
      // The follower's home feed got every one (the fan-out is part of each write).
      const home = await server.call(follower.token, 'GET', '/api/v1/timelines/home?limit=40');
      expect(home.body.map((s: { content: string }) => s.content.replace(/<[^>]+>/g, '')).sort()).toEqual(
        Array.from({ length: posts }, (_, i) => `together ${i}`).sort(),
      );
    } finally {
      stop();
      store.db.exec('DROP TRIGGER temp.refuse_mention');
    }
  });

  it('sends no answer and tells no streaming client of a post before the sync of its WAL has returned', async () => {
    const groups = writeGroupsOf(server.social.db)!;
    const ordinary = groups.syncFile;
    // A slow disk: each sync of the WAL returns 150 ms late. What is told meanwhile would be told before the write is on
    // disk; every observer below notes how many syncs had returned when it saw the post.
    let returned = 0;
    let requested = 0;
    groups.syncFile = (fd, done) => {
      requested++;
      setTimeout(
        () =>
          ordinary(fd, (err) => {
            returned++;
            done(err);
          }),
        150,
      );
    };
    const streamingUrl = (await server.call(follower.token, 'GET', '/api/v2/instance')).body.configuration.urls
      .streaming;
    const ws = new WebSocket(`${streamingUrl}/api/v1/streaming?stream=user`, [follower.token]);
    const streamed: number[] = [];
    ws.on('message', (data) => {
      if (JSON.parse(data.toString()).event === 'update') streamed.push(returned);
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const bus: number[] = [];
    const stop = server.social.context.store.events.on('status.created', () => bus.push(returned));
    try {
      await until(() => server.social.streaming.stats().subscriptions >= 1, 'the streaming subscription');
      const syncsBefore = requested;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post(`slow disk ${i}`).then((answer) => ({ status: answer.status, returnedThen: returned })),
        ),
      );
      expect(requested).toBeGreaterThan(syncsBefore);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.returnedThen).toBeGreaterThan(0);
      }
      await until(() => streamed.length === 10, "ten updates on the follower's stream");
      expect(bus).toHaveLength(10);
      expect([...bus, ...streamed].every((n) => n > 0)).toBe(true);
    } finally {
      stop();
      ws.close();
      groups.syncFile = ordinary;
    }
  });

  it('when the disk is full mid-group, no write of the lost group is acknowledged, and the server writes again once there is room', async () => {
    const store = server.social.context.store;
    const db = store.db;
    const pages = Number(db.pragma('page_count', { simple: true }));
    await warmConnections(20);
    const answers = await (async () => {
      db.pragma(`max_page_count = ${pages + 3}`);
      try {
        return await Promise.all(
          Array.from({ length: 20 }, (_, i) => post(`full ${i} ${'words to fill the pages '.repeat(20)}`)),
        );
      } finally {
        db.pragma('max_page_count = 4294967294');
      }
    })();
    const acknowledged = answers.filter((a) => a.status === 200);
    expect(acknowledged.length).toBeLessThan(answers.length);
    expect(committedTexts('full %')).toHaveLength(acknowledged.length);
    for (const a of answers) expect([200, 500, 503, 507]).toContain(a.status);
    const after = await post('room again');
    expect(after.status).toBe(200);
    expect(committedTexts('room again')).toHaveLength(1);
  });
});

/**
 * Fault proof: `homeport serve` is SIGKILLed while event-log clients append and a Mastodon client posts, then
 * restarted; after every restart each acknowledged event and post must be there exactly once.
 * `npm run bench:kill -- --cycles 100` (default 100); bench/kill-cycles.test.ts runs three cycles in CI.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServeProcess } from '../server/testing/serve-process.ts';
import { es } from './support.ts';

const quietLog = { debug() {}, info() {}, error() {} };

async function connect(port: number) {
  const connection = es.createConnection(
    { log: quietLog, defaultUserCredentials: new es.UserCredentials('admin', 'changeit'), maxReconnections: 0 },
    `tcp://127.0.0.1:${port}`,
    'kill-cycles',
  );
  connection.on('error', () => {});
  const connected = new Promise<void>((resolve) => connection.once('connected', () => resolve()));
  await connection.connect();
  await connected;
  return connection;
}

export interface KillCycleFigures {
  cycles: number;
  eventsAcknowledged: number;
  postsAcknowledged: number;
  /** Acknowledged but missing after a restart (must be 0). */
  eventsLost: number;
  postsLost: number;
  /** Present more than once (must be 0). */
  eventsDuplicated: number;
  postsDuplicated: number;
}

/** Runs `cycles` kill/restart cycles in a fresh data directory and checks after each restart. */
export async function runKillCycles(options: {
  cycles: number;
  log?: (line: string) => void;
}): Promise<KillCycleFigures> {
  const log = options.log ?? (() => {});
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-kill-'));
  const figures: KillCycleFigures = {
    cycles: 0,
    eventsAcknowledged: 0,
    postsAcknowledged: 0,
    eventsLost: 0,
    postsLost: 0,
    eventsDuplicated: 0,
    postsDuplicated: 0,
  };
  const ackedEvents = new Set<string>();
  const ackedPosts = new Set<string>();
  let token = '';
  let accountId = '';
  try {
    for (let cycle = 0; cycle <= options.cycles; cycle++) {
      const server = await startServeProcess({ dataDir, logLevel: 'error' });
      if (cycle === 0) {
        server.cli(['accounts', 'create', 'poster', '--email', 'poster@example.org', '--role', 'owner', '--confirmed']);
        token = server.cli(['tokens', 'create', 'poster', '--scopes', 'read write']).trim();
        accountId = (
          (await (
            await fetch(`${server.httpUrl}/api/v1/accounts/verify_credentials`, {
              headers: { Authorization: `Bearer ${token}` },
            })
          ).json()) as { id: string }
        ).id;
      }
      const connection = await connect(server.tcpPort);
      if (cycle > 0) {
        await verify(connection, server.httpUrl, token, accountId, ackedEvents, ackedPosts, figures);
        figures.cycles = cycle;
        log(
          `cycle ${cycle}: ${ackedEvents.size} events and ${ackedPosts.size} posts acknowledged so far; lost ${figures.eventsLost + figures.postsLost}, duplicated ${figures.eventsDuplicated + figures.postsDuplicated}`,
        );
      }
      if (cycle === options.cycles) {
        connection.close();
        await server.stop();
        break;
      }
      // Load: four appenders and two posters until the kill.
      let running = true;
      const appender = async (w: number) => {
        while (running) {
          const id = crypto.randomUUID();
          try {
            await connection.appendToStream(`kill-${cycle}-${w}`, es.expectedVersion.any, [
              es.createJsonEventData(id, { cycle, w }, null, 'Tick'),
            ]);
            ackedEvents.add(id);
          } catch {
            return; // the connection died with the server
          }
        }
      };
      const poster = async (p: number) => {
        for (let n = 0; running; n++) {
          const text = `cycle ${cycle} poster ${p} post ${n} ${crypto.randomUUID()}`;
          try {
            const res = await fetch(`${server.httpUrl}/api/v1/statuses`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ status: text }),
            });
            if (res.status !== 200) return;
            ackedPosts.add(((await res.json()) as { id: string }).id);
          } catch {
            return;
          }
        }
      };
      const load = [0, 1, 2, 3].map(appender).concat([0, 1].map(poster));
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
      await server.stop('SIGKILL');
      running = false;
      await Promise.all(load);
      connection.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  figures.eventsAcknowledged = ackedEvents.size;
  figures.postsAcknowledged = ackedPosts.size;
  return figures;
}

async function verify(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  connection: any,
  httpUrl: string,
  token: string,
  accountId: string,
  ackedEvents: Set<string>,
  ackedPosts: Set<string>,
  figures: KillCycleFigures,
): Promise<void> {
  const seen = new Map<string, number>();
  let position = es.positions.start;
  for (;;) {
    const slice = await connection.readAllEventsForward(position, 4096, false);
    for (const e of slice.events)
      if (e.originalEvent.eventType === 'Tick')
        seen.set(e.originalEvent.eventId, (seen.get(e.originalEvent.eventId) ?? 0) + 1);
    if (slice.isEndOfStream) break;
    position = slice.nextPosition;
  }
  figures.eventsLost = [...ackedEvents].filter((id) => !seen.has(id)).length;
  figures.eventsDuplicated = [...seen.values()].filter((n) => n > 1).length;

  const posts = new Map<string, number>();
  let maxId = '';
  for (;;) {
    const res = await fetch(
      `${httpUrl}/api/v1/accounts/${accountId}/statuses?limit=40${maxId ? `&max_id=${maxId}` : ''}`,
      { headers: { Authorization: `Bearer ${token}` } },
    );
    const page = (await res.json()) as { id: string; content: string }[];
    for (const s of page) posts.set(s.id, (posts.get(s.id) ?? 0) + 1);
    const texts = new Set(page.map((s) => s.content));
    figures.postsDuplicated += page.length - texts.size;
    if (page.length < 40) break;
    maxId = page[page.length - 1].id;
  }
  figures.postsLost = [...ackedPosts].filter((id) => !posts.has(id)).length;
  figures.postsDuplicated += [...posts.values()].filter((n) => n > 1).length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const at = process.argv.indexOf('--cycles');
  const cycles = at > 0 ? Number(process.argv[at + 1]) : 100;
  const started = Date.now();
  const figures = await runKillCycles({ cycles, log: (line) => console.log(line) });
  console.log(JSON.stringify({ ...figures, seconds: Math.round((Date.now() - started) / 1000) }, null, 2));
  const ok = figures.eventsLost + figures.postsLost + figures.eventsDuplicated + figures.postsDuplicated === 0;
  console.log(
    ok ? 'every acknowledged event and post present exactly once after every restart' : 'LOSS OR DUPLICATION FOUND',
  );
  process.exit(ok ? 0 : 1);
}

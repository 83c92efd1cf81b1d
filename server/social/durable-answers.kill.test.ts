import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../testing/serve-process.ts';

/*
 * Group commit against a crash: bursts of posts sent at once share commits; the moment the first answer of a
 * burst arrives the server is SIGKILLed (while the rest of its group may still be committing). Every post
 * that was answered must be in the database afterwards. An answer sent before its group's COMMIT reached the
 * disk would be lost here.
 */

const BURST = 30;
const ROUNDS = 2;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-durable-kill-'));
let proc: ServeProcess | null = null;

afterAll(async () => {
  await proc?.stop('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function burst(server: ServeProcess, token: string, round: number): Promise<string[]> {
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  // Keep-alive connections first, so the burst arrives together rather than one per handshake.
  await Promise.all(
    Array.from({ length: BURST }, () =>
      fetch(`${server.httpUrl}/api/v1/accounts/verify_credentials`, { headers }).then((r) => r.arrayBuffer()),
    ),
  );
  const acknowledged: string[] = [];
  await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      try {
        const res = await fetch(`${server.httpUrl}/api/v1/statuses`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ status: `round ${round} post ${i}` }),
        });
        if (res.status !== 200) return;
        const { id } = (await res.json()) as { id: string };
        acknowledged.push(id);
        server.child.kill('SIGKILL'); // at the first answer: the rest of its group may be mid-COMMIT
      } catch {
        // the server died before answering: not acknowledged
      }
    }),
  );
  await server.stop('SIGKILL');
  return acknowledged;
}

describe('group commit and SIGKILL', () => {
  it('keeps every answered post when the server is killed at the first answer of a burst', async () => {
    let token = '';
    const acknowledged: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      proc = await startServeProcess({ dataDir });
      if (round === 0) token = proc.createUser('poster');
      acknowledged.push(...(await burst(proc, token, round)));
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(ROUNDS);
    const db = new BetterSqlite3(path.join(dataDir, 'social.db'));
    db.defaultSafeIntegers(true); // snowflake ids are past 2^53
    try {
      const present = new Set(
        (db.prepare('SELECT id FROM statuses').all() as { id: bigint }[]).map((r) => String(r.id)),
      );
      expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});

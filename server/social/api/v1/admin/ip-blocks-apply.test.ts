import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SocialTestServer, startSocialWithClock } from '../../../testing/harness.ts';

/*
 * An IP block applies at the next request after it changes, wherever the change comes from: the admin CLI (another
 * process, another connection to social.db) adding or lifting it, or its expiry passing with nothing written. The
 * request check keeps the list between changes instead of reading it per request.
 */

let clock = Date.UTC(2026, 0, 1);
let server: SocialTestServer;

beforeAll(async () => {
  server = await startSocialWithClock(() => clock);
});

afterAll(async () => {
  await server?.close();
});

const instanceStatus = async () => (await server.fetch(`${server.url}/api/v1/instance`)).status;

describe('IP blocks', () => {
  it('written by another connection (the admin CLI) apply at the next request, and so does their removal', async () => {
    expect(await instanceStatus()).toBe(200);
    const cli = new Database(path.join(server.dir, 'social.db'));
    try {
      cli
        .prepare(
          "INSERT INTO ip_blocks (id, ip, severity, comment, expires_at, created_at, updated_at) VALUES (1, '127.0.0.0/8', 'no_access', 'from the CLI', NULL, ?, ?)",
        )
        .run(clock, clock);
      expect(await instanceStatus()).toBe(403);
      expect(await instanceStatus()).toBe(403);
      cli.prepare('DELETE FROM ip_blocks WHERE id = 1').run();
      expect(await instanceStatus()).toBe(200);
    } finally {
      cli.close();
    }
  });

  it('end at their expiry, with nothing written', async () => {
    server.social.context.moderation.addIpBlock({
      ip: '127.0.0.0/8',
      severity: 'no_access',
      comment: 'for a minute',
      expiresAt: clock + 60_000,
    });
    expect(await instanceStatus()).toBe(403);
    clock += 59_000;
    expect(await instanceStatus()).toBe(403);
    clock += 1_000;
    expect(await instanceStatus()).toBe(200);
  });
});

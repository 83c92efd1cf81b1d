import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventLog } from '../eventlog/index.ts';
import { cli } from './testing/run-cli.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('homeport eventlog tokens', () => {
  it('creates (printing the secret once), lists and revokes tokens that act as their user', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-eventlog-tokens-'));
    dirs.push(dir);
    const d = ['--data-dir', dir];
    expect((await cli(['eventlog', 'users', 'add', 'alice', '--password', 'pw-1', ...d])).code).toBe(0);

    const created = await cli([
      'eventlog',
      'tokens',
      'create',
      '--user',
      'alice',
      '--expires-in',
      '30d',
      '--name',
      'ci',
      ...d,
    ]);
    expect(created.code).toBe(0);
    const [token] = created.out;
    expect(token).toMatch(/^hpel_[A-Za-z0-9_-]{43}$/);
    const id = /token ([0-9a-f]{16}) for event-log user alice, expires (\S+);/.exec(created.err[0]);
    expect(id).not.toBeNull();
    const expires = Date.parse(id![2]) - Date.now();
    expect(expires).toBeGreaterThan(29 * 86_400_000);
    expect(expires).toBeLessThanOrEqual(30 * 86_400_000);

    const listed = await cli(['eventlog', 'tokens', 'list', '--user', 'alice', ...d]);
    expect(listed.out[0]).toMatch(/^ID\s+USER\s+CREATED\s+EXPIRES\s+NAME$/);
    expect(listed.out[1]).toMatch(new RegExp(`^${id![1]}\\s+alice\\s+\\S+\\s+${id![2]}\\s+ci$`));
    expect(listed.out.join('\n')).not.toContain(token);

    const log = await openEventLog({ dataDir: dir, logger: pino({ level: 'silent' }) });
    try {
      expect(log.tokens.authenticate(token)).toMatchObject({ name: 'alice' });
      expect(await cli(['eventlog', 'tokens', 'revoke', id![1], ...d])).toMatchObject({
        code: 0,
        out: [`revoked token ${id![1]}`],
      });
      // the server's open log sees the revocation at once
      expect(log.tokens.authenticate(token)).toBeNull();
    } finally {
      await log.close();
    }
    expect((await cli(['eventlog', 'tokens', 'list', '--json', ...d])).out).toEqual(['[]']);
  });

  it('refuses bad lifetimes, unknown users and unknown ids', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-eventlog-tokens-'));
    dirs.push(dir);
    const d = ['--data-dir', dir];
    expect((await cli(['eventlog', 'users', 'add', 'bob', '--password', 'pw-1', ...d])).code).toBe(0);
    for (const bad of ['30', '0d', '1y', '-1d'])
      expect(await cli(['eventlog', 'tokens', 'create', '--user', 'bob', `--expires-in=${bad}`, ...d])).toMatchObject({
        code: 2,
        err: [expect.stringMatching(/--expires-in must be/)],
      });
    expect(await cli(['eventlog', 'tokens', 'create', ...d])).toMatchObject({ code: 2 });
    expect(await cli(['eventlog', 'tokens', 'create', '--user', 'nobody', ...d])).toMatchObject({
      code: 1,
      err: [expect.stringMatching(/user "nobody" not found/)],
    });
    expect(await cli(['eventlog', 'tokens', 'revoke', 'feedfeedfeedfeed', ...d])).toMatchObject({
      code: 1,
      err: [expect.stringMatching(/not found/)],
    });
  });
});

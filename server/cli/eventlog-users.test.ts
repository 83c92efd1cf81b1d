import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventLog, type CommittedBatch } from '../eventlog/index.ts';
import { cli } from './testing/run-cli.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-eventlog-cli-'));
  dirs.push(d);
  return d;
}

describe('homeport eventlog users', () => {
  it('lists, adds, changes passwords and removes users', async () => {
    const dir = tempDir();
    const d = ['--data-dir', dir];
    expect(await cli(['eventlog', 'users', 'list', ...d])).toMatchObject({
      code: 1,
      err: [expect.stringMatching(/no event log in/)],
    });

    const added = await cli([
      'eventlog',
      'users',
      'add',
      'alice',
      '--password',
      'pw-1',
      '--group',
      'devs',
      '--group',
      '$ops',
      '--full-name',
      'Alice A.',
      ...d,
    ]);
    expect(added).toMatchObject({ code: 0, out: ['added event-log user alice (groups devs, $ops)'] });
    const listed = await cli(['eventlog', 'users', 'list', ...d]);
    expect(listed.code).toBe(0);
    expect(listed.out[0]).toMatch(/^USER\s+GROUPS\s+STATE\s+CREATED\s+FULL NAME$/);
    expect(listed.out.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['admin', 'alice', 'ops']);
    expect(listed.out[2]).toMatch(/^alice\s+devs,\$ops\s+enabled\s+\S+\s+Alice A\.$/);
    const asJson = JSON.parse((await cli(['eventlog', 'users', 'list', '--json', ...d])).out.join('\n'));
    expect(asJson[1]).toMatchObject({ name: 'alice', groups: ['devs', '$ops'], fullName: 'Alice A.' });

    expect(await cli(['eventlog', 'users', 'passwd', 'alice', '--password', 'pw-2', ...d])).toMatchObject({ code: 0 });
    const log = await openEventLog({ dataDir: dir, logger: pino({ level: 'silent' }) });
    try {
      expect(await log.users.authenticate('alice', 'pw-1')).toBeNull();
      expect(await log.users.authenticate('alice', 'pw-2')).toEqual({ name: 'alice', groups: ['devs', '$ops'] });
    } finally {
      await log.close();
    }
    expect(await cli(['eventlog', 'users', 'remove', 'alice', ...d])).toMatchObject({
      code: 0,
      out: ['removed event-log user alice'],
    });
    expect((await cli(['eventlog', 'users', 'list', ...d])).out).toHaveLength(3);
  });

  it('explains mistakes with exit code 2 (usage) or 1 (refused)', async () => {
    const dir = tempDir();
    const d = ['--data-dir', dir];
    expect(await cli(['eventlog', 'users', 'add', 'bob', ...d])).toMatchObject({
      code: 2,
      err: ['homeport: --password or --password-stdin is required'],
    });
    expect(await cli(['eventlog', 'users', 'add', '--password', 'x', ...d])).toMatchObject({
      code: 2,
      err: ['homeport: give exactly one USER name'],
    });
    expect(await cli(['eventlog', 'users', 'add', '$admins', '--password', 'x', ...d])).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/must not start with "\$"/)],
    });
    expect(await cli(['eventlog', 'users', 'add', 'admin', '--password', 'x', ...d])).toMatchObject({
      code: 1,
      err: ['homeport: user "admin" already exists'],
    });
    expect(await cli(['eventlog', 'users', 'passwd', 'ghost', '--password', 'x', ...d])).toMatchObject({
      code: 1,
      err: ['homeport: user "ghost" not found'],
    });
    expect(await cli(['eventlog', 'users', 'remove', 'ghost', ...d])).toMatchObject({ code: 1 });
    expect((await cli(['eventlog', 'users', 'add', 'bob', '--bogus', ...d])).code).toBe(2);
  });

  it('works while a server has the same event log open, which sees the change at once', async () => {
    const dir = tempDir();
    const server = await openEventLog({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      limits: { externalPollMs: 25 },
    });
    try {
      const usersEvent = new Promise<CommittedBatch>((resolve) =>
        server.store.onCommitted((b) => {
          if (b.events.some((e) => e.streamId === '$users')) resolve(b);
        }),
      );
      const child = spawn(
        process.execPath,
        [
          path.join(root, 'bin', 'homeport.js'),
          'eventlog',
          'users',
          'add',
          'erin',
          '--password-stdin',
          '--data-dir',
          dir,
        ],
        {
          cwd: root,
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.stdin.end('from-stdin\nignored second line\n');
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect({ code, output }).toEqual({ code: 0, output: 'added event-log user erin\n' });
      expect(await server.users.authenticate('erin', 'from-stdin')).toEqual({ name: 'erin', groups: [] });
      const batch = await usersEvent;
      expect(batch.events.map((e) => `${e.streamId}:${e.eventType}`)).toEqual([
        '$$$user-erin:$metadata',
        '$user-erin:$UserCreated',
        '$users:$User',
      ]);
    } finally {
      await server.close();
    }
  });
});

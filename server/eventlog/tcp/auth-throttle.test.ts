import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventLog } from '../eventlog.ts';
import type { SqliteEventStore } from '../store/sqlite-store.ts';
import { SqliteEventLogUsers } from '../store/users.ts';
import { verifyPassword } from '../store/passwords.ts';
import { tempDir } from '../store/testing/store.ts';
import { TcpCommand } from './commands.ts';
import { RawClient, startTcpFixture, type TcpFixture } from './testing/raw-client.ts';

let fx: TcpFixture | null = null;
afterEach(async () => {
  await fx?.close();
  fx = null;
});

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('event-log credentials under brute force', () => {
  it('refuses an address after 30 failures over TCP, even with good credentials, and logs each failure without the password', async () => {
    const { logger, lines } = capturingLogger();
    fx = await startTcpFixture({}, { logger });
    const c = await RawClient.connect(fx.port, { answerHeartbeats: true });
    try {
      for (let i = 0; i < 30; i++) {
        const bad = await c.request(TcpCommand.Authenticate, null, {
          login: i === 1 ? 'admin' : `nobody-${i}`,
          password: `guess-${i}`,
        });
        expect(bad.command).toBe(TcpCommand.NotAuthenticated);
      }
      // The 31st attempt, right credentials or not, is refused without a password check.
      const good = await c.request(TcpCommand.Authenticate, null, { login: 'ops', password: 'changeit' });
      expect(good.command).toBe(TcpCommand.NotAuthenticated);
    } finally {
      c.destroy();
    }
    const failures = lines.filter((l) => l.msg === 'event-log sign-in failed');
    expect(failures).toHaveLength(30);
    expect(failures[0]).toMatchObject({ user: 'nobody-0', from: '127.0.0.1', reason: 'unknown user' });
    expect(failures[1]).toMatchObject({ user: 'admin', reason: 'wrong password' });
    expect(lines.some((l) => l.msg === 'event-log sign-in refused: too many failed attempts' && l.user === 'ops')).toBe(
      true,
    );
    expect(JSON.stringify(lines)).not.toContain('guess-');
  });

  it('spends a password check on unknown and disabled users as on a wrong password', async () => {
    const dir = tempDir();
    const log = await openEventLog({ dataDir: dir, logger: pino({ level: 'silent' }) });
    try {
      const checked: string[] = [];
      const users = new SqliteEventLogUsers({
        store: log.store as SqliteEventStore,
        verifyPassword: (password, stored) => {
          checked.push(password);
          return verifyPassword(password, stored);
        },
      });
      expect(await users.authenticate('admin', 'wrong', 'a')).toBeNull();
      expect(await users.authenticate('ghost', 'whatever', 'b')).toBeNull();
      expect(await users.authenticate('admin', 'changeit', 'c')).toEqual({ name: 'admin', groups: ['$admins'] });
      expect(checked).toEqual(['wrong', 'whatever', 'changeit']);
    } finally {
      await log.close();
    }
  });

  it('lets the right password through from an address that did not fail, however many others did', async () => {
    fx = await startTcpFixture();
    const users = fx.eventLog.users;
    expect(await users.authenticate('admin', 'changeit', '10.0.0.1')).not.toBeNull();
    for (let i = 0; i < 60; i++) {
      await users.authenticate('admin', `guess-${i}`, `10.1.${i}.1`);
      await users.authenticate('ops', `guess-${i}`, `10.2.${i}.1`);
    }
    expect(await users.authenticate('admin', 'changeit', '10.0.0.1')).not.toBeNull();
    // A name under attack from many addresses stays usable from any other (no count per user name alone).
    expect(await users.authenticate('ops', 'changeit', '10.0.0.2')).not.toBeNull();
    expect(await users.authenticate('ops', 'changeit', '10.2.0.1')).not.toBeNull();
  });
});

import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEventLog, type EventLog } from '../eventlog.ts';
import { ADMIN, json, silentLogger, tempDir } from './testing/store.ts';
import { EventLogUserError } from './users.ts';

let dir: string;
let log: EventLog;
beforeEach(async () => {
  dir = tempDir();
  log = await openEventLog({ dataDir: dir, logger: silentLogger });
});
afterEach(async () => {
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function streamEvents(streamId: string): { type: string; data: unknown; isJson: boolean }[] {
  return log.store.readStreamForward(streamId, 0, 100, false, ADMIN).events.map((e) => ({
    type: e.event!.eventType,
    isJson: e.event!.isJson,
    data: e.event!.isJson ? json(e.event!.data) : Buffer.from(e.event!.data).toString(),
  }));
}

describe('event-log users', () => {
  it('starts with admin/changeit in $admins and ops/changeit in $ops', async () => {
    expect(log.users.list().map((u) => [u.name, u.groups, u.disabled])).toEqual([
      ['admin', ['$admins'], false],
      ['ops', ['$ops'], false],
    ]);
    expect(await log.users.authenticate('admin', 'changeit')).toEqual({ name: 'admin', groups: ['$admins'] });
    expect(await log.users.authenticate('ops', 'changeit')).toEqual({ name: 'ops', groups: ['$ops'] });
    expect(await log.users.authenticate('admin', 'wrong')).toBeNull();
    expect(await log.users.authenticate('nobody', 'changeit')).toBeNull();
    expect(await log.users.authenticate('', '')).toBeNull();
    expect(streamEvents('$users').map((e) => e.data)).toEqual(['admin', 'ops']);
  });

  it('adds a user and records it in $user-<name> and $users, without the password hash', async () => {
    const user = await log.users.add({ name: 'alice', password: 's3cret', fullName: 'Alice A.', groups: ['devs'] });
    expect(user).toMatchObject({ name: 'alice', fullName: 'Alice A.', groups: ['devs'], disabled: false });
    expect(log.users.get('alice')).toEqual(user);
    expect(await log.users.authenticate('alice', 's3cret')).toEqual({ name: 'alice', groups: ['devs'] });
    expect(streamEvents('$user-alice')).toEqual([
      {
        type: '$UserCreated',
        isJson: true,
        data: { loginName: 'alice', fullName: 'Alice A.', groups: ['devs'], disabled: false },
      },
    ]);
    expect(streamEvents('$users').map((e) => [e.type, e.data])).toContainEqual(['$User', 'alice']);
    expect(log.store.getStreamMetadata('$user-alice').acl).toEqual({
      writeRoles: ['$admins'],
      deleteRoles: ['$admins'],
      metaWriteRoles: ['$admins'],
    });
    // A system stream: others cannot read it.
    expect(log.store.readStreamForward('$user-alice', 0, 10, false, { name: 'alice', groups: ['devs'] }).result).toBe(
      'AccessDenied',
    );
    const everything = log.store
      .readAllForward({ commitPosition: 0, preparePosition: 0 }, 4096, false, ADMIN)
      .events.map((e) => Buffer.from(e.event!.data).toString())
      .join('\n');
    expect(everything).not.toMatch(/scrypt|s3cret|changeit/);
  });

  it('refuses duplicates and invalid input with EventLogUserError', async () => {
    await expect(log.users.add({ name: 'admin', password: 'x' })).rejects.toMatchObject({
      code: 'EXISTS',
      message: 'user "admin" already exists',
    });
    for (const name of ['', 'has space', '$admins', 'a:b', 'x'.repeat(256)]) {
      await expect(log.users.add({ name, password: 'pw' })).rejects.toBeInstanceOf(EventLogUserError);
    }
    await expect(log.users.add({ name: 'bob', password: '' })).rejects.toMatchObject({ code: 'INVALID' });
    await expect(log.users.add({ name: 'bob', password: 'p'.repeat(256) })).rejects.toThrow(/at most 255 bytes/);
    await expect(log.users.add({ name: 'bob', password: 'pw', groups: ['bad group'] })).rejects.toMatchObject({
      code: 'INVALID',
    });
    await expect(log.users.changePassword('nobody', 'pw')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'user "nobody" not found',
    });
    await expect(log.users.remove('nobody')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(log.users.list().map((u) => u.name)).toEqual(['admin', 'ops']);
  });

  it('changes a password: the old one stops working at once, the change is recorded', async () => {
    expect(await log.users.authenticate('admin', 'changeit')).not.toBeNull();
    await log.users.changePassword('admin', 'better');
    expect(await log.users.authenticate('admin', 'changeit')).toBeNull();
    expect(await log.users.authenticate('admin', 'better')).toEqual({ name: 'admin', groups: ['$admins'] });
    expect(streamEvents('$user-admin').map((e) => e.type)).toEqual(['$UserCreated', '$UserUpdated']);
    expect(streamEvents('$users-password-notifications')).toEqual([
      { type: '$PasswordChanged', isJson: true, data: { loginName: 'admin' } },
    ]);
  });

  it('removes a user (soft-deleting $user-<name>) and can add it again', async () => {
    await log.users.add({ name: 'carol', password: 'pw1' });
    expect(await log.users.authenticate('carol', 'pw1')).not.toBeNull();
    await log.users.remove('carol');
    expect(log.users.get('carol')).toBeUndefined();
    expect(await log.users.authenticate('carol', 'pw1')).toBeNull();
    expect(log.store.readStreamForward('$user-carol', 0, 10, false, ADMIN).result).toBe('NoStream');
    await log.users.add({ name: 'carol', password: 'pw2' });
    expect(await log.users.authenticate('carol', 'pw2')).not.toBeNull();
    const again = log.store.readStreamForward('$user-carol', 0, 10, false, ADMIN);
    expect(again.events.map((e) => [e.event!.eventNumber, e.event!.eventType])).toEqual([[1, '$UserCreated']]);
  });

  it('sees changes made by another process on the same file (the CLI) at the next check', async () => {
    expect(await log.users.authenticate('ops', 'changeit')).not.toBeNull();
    const other = await openEventLog({ dataDir: dir, logger: silentLogger });
    try {
      await other.users.changePassword('ops', 'rotated');
      await other.users.add({ name: 'dave', password: 'pw' });
    } finally {
      await other.close();
    }
    expect(await log.users.authenticate('ops', 'changeit')).toBeNull();
    expect(await log.users.authenticate('ops', 'rotated')).not.toBeNull();
    expect(await log.users.authenticate('dave', 'pw')).toEqual({ name: 'dave', groups: [] });
    expect(log.users.list().map((u) => u.name)).toEqual(['admin', 'dave', 'ops']);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Homeport } from '../../index.ts';
import { startTestHomeport } from '../testing/homeport.ts';
import { UI_SESSION_COOKIE } from './auth.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-session-restart-'));
let hp: Homeport | null = null;

/** (Re)starts Homeport on the same data directory, as a restart of the app or of `homeport serve` does. */
async function restart(): Promise<Homeport> {
  await hp?.close();
  const started = await startTestHomeport({ dataDir });
  hp = started.hp;
  return started.hp;
}

const url = (p: string) => `${hp!.httpUrl}/api/homeport/v1${p}`;
const withCookie = (cookie: string, init: RequestInit = {}) => ({ ...init, headers: { cookie } });

async function signIn(username: string, password: string): Promise<{ cookie: string; token: string }> {
  const res = await fetch(url('/session'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  expect(res.status).toBe(200);
  const { token } = (await res.json()) as { token: string };
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], token };
}

afterAll(async () => {
  await hp?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('UI sessions across a restart of the server', () => {
  it('keeps a signed-in browser signed in, stores only a hash of its token, and ends it at sign-out', async () => {
    await restart();
    await hp!.eventLog.users.add({ name: 'kim', password: 'kim-password', groups: ['$admins'] });
    const { cookie, token } = await signIn('kim', 'kim-password');
    const appToken = hp!.uiToken;
    expect(cookie.startsWith(`${UI_SESSION_COOKIE}=${token}`)).toBe(true);

    await restart();
    const me = await fetch(url('/session'), withCookie(cookie));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { name: string } }).user.name).toBe('kim');
    expect((await fetch(url('/eventlog/streams'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // The start-time app token is the process's own: it does not outlive it.
    expect((await fetch(url('/session'), { headers: { authorization: `Bearer ${appToken}` } })).status).toBe(401);
    // What is on disk cannot be replayed: the token itself is not there.
    const onDisk = fs
      .readdirSync(dataDir)
      .filter((f) => f.startsWith('ui-sessions.db'))
      .map((f) => fs.readFileSync(path.join(dataDir, f)).toString('latin1'))
      .join('');
    expect(onDisk.length).toBeGreaterThan(0);
    expect(onDisk).not.toContain(token);

    expect((await fetch(url('/session'), withCookie(cookie, { method: 'DELETE' }))).status).toBe(200);
    expect((await fetch(url('/session'), withCookie(cookie))).status).toBe(401);
    await restart();
    expect((await fetch(url('/session'), withCookie(cookie))).status).toBe(401);
  });

  it('ends the kept session for good when the password changes', async () => {
    await hp!.eventLog.users.add({ name: 'lou', password: 'lou-password', groups: ['$admins'] });
    const { cookie } = await signIn('lou', 'lou-password');
    await restart();
    expect((await fetch(url('/session'), withCookie(cookie))).status).toBe(200);
    await hp!.eventLog.users.changePassword('lou', 'lou-new-password');
    expect((await fetch(url('/session'), withCookie(cookie))).status).toBe(401);
    await restart();
    expect((await fetch(url('/session'), withCookie(cookie))).status).toBe(401);
  });
  it('starts with no sessions when their file is damaged, instead of not starting', async () => {
    await hp!.eventLog.users.add({ name: 'max', password: 'max-password', groups: ['$admins'] });
    const { cookie } = await signIn('max', 'max-password');
    await hp!.close();
    hp = null;
    for (const suffix of ['-wal', '-shm']) fs.rmSync(path.join(dataDir, `ui-sessions.db${suffix}`), { force: true });
    fs.writeFileSync(path.join(dataDir, 'ui-sessions.db'), Buffer.alloc(8192, 0x5a));
    await restart();
    expect(hp!.logs.entries.map((l) => l.msg)).toContain(
      'the UI sessions file was damaged and is replaced by an empty one: sign in again',
    );
    expect((await fetch(url('/session'), withCookie(cookie))).status).toBe(401);
    const again = await signIn('max', 'max-password');
    expect((await fetch(url('/session'), withCookie(again.cookie))).status).toBe(200);
  });
});

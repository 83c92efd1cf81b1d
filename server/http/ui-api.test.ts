import { describe, expect, it } from 'vitest';
import { useTestHomeport } from './testing/homeport.ts';

const server = useTestHomeport();

const api = (p: string, init: RequestInit = {}) => fetch(`${server.hp.httpUrl}/api/homeport/v1${p}`, init);
const signIn = (username: string, password: string) =>
  api('/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });

describe('UI API', () => {
  it('answers 401 to every call without credentials', async () => {
    for (const p of ['/server', '/logs', '/session']) expect((await api(p)).status).toBe(401);
    expect((await api('/server', { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
  });

  it('lets a session with the default password do nothing but change it', async () => {
    const res = await signIn('admin', 'changeit');
    expect(res.status).toBe(200);
    const { token, user } = (await res.json()) as { token: string; user: { mustChangePassword?: boolean } };
    expect(user.mustChangePassword).toBe(true);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (const p of ['/server', '/logs', '/eventlog/streams']) {
      const refused = await api(p, { headers: auth });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ error: 'Change the default password first', mustChangePassword: true });
    }
    expect((await api('/session', { headers: auth })).status).toBe(200);
    const put = (body: object) =>
      api('/session/password', { method: 'PUT', headers: auth, body: JSON.stringify(body) });
    expect((await put({ currentPassword: 'wrong', newPassword: 'a better password' })).status).toBe(422);
    expect((await put({ currentPassword: 'changeit', newPassword: 'short' })).status).toBe(422);
    expect((await put({ currentPassword: 'changeit', newPassword: 'changeit' })).status).toBe(422);
    expect((await put({ currentPassword: 'changeit', newPassword: 'a better password' })).status).toBe(200);
    // The change ends the session; the new password signs in without restrictions, the old one no longer does.
    expect((await api('/session', { headers: auth })).status).toBe(401);
    expect((await signIn('admin', 'changeit')).status).toBe(401);
  });

  it('signs the event-log admin in and shows the server facts', async () => {
    const res = await signIn('admin', 'a better password');
    expect(res.status).toBe(200);
    const { token, user } = (await res.json()) as { token: string; user: { name: string } };
    expect(user.name).toBe('admin');
    const info = await (await api('/server', { headers: { authorization: `Bearer ${token}` } })).json();
    expect(info.dataDir).toBe(server.hp.config.dataDir);
    expect(info.listeners.map((l: { name: string }) => l.name)).toContain('eventlog-tcp');
    expect(info.databases.map((d: { name: string }) => d.name)).toEqual(['eventlog', 'social']);

    expect((await api('/session', { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    expect((await api('/server', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('refuses wrong passwords and non-admin event-log users', async () => {
    expect((await signIn('admin', 'wrong')).status).toBe(401);
    expect((await signIn('ops', 'changeit')).status).toBe(401);
  });

  it('rejects malformed sign-in bodies with 400, not 500', async () => {
    const res = await api('/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"username": 5',
    });
    expect(res.status).toBe(400);
    const missing = await api('/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(400);
  });

  it('accepts the token minted for the desktop shell, and keeps passwords out of the log', async () => {
    const res = await api('/logs?limit=2000', { headers: { authorization: `Bearer ${server.hp.uiToken}` } });
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as { entries: { line: string }[] };
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.some((e) => e.line.includes('changeit'))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { useTestHomeport } from '../testing/homeport.ts';
import { UI_SESSION_COOKIE } from './auth.ts';

const server = useTestHomeport();
const url = (p: string) => `${server.hp.httpUrl}/api/homeport/v1${p}`;

/** Signs in as a fresh administrator and returns the Set-Cookie header and the `name=value` pair a browser sends back. */
async function signIn(name: string): Promise<{ setCookie: string; cookie: string }> {
  await server.hp.eventLog.users.add({ name, password: `${name}-password`, groups: ['$admins'] });
  const res = await fetch(url('/session'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password: `${name}-password` }),
  });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { setCookie, cookie: setCookie.split(';')[0] };
}

describe('the UI session cookie', () => {
  it('keeps a browser signed in across tabs: HttpOnly, SameSite=Strict, scoped to the UI API', async () => {
    const { setCookie, cookie } = await signIn('grace');
    expect(cookie.startsWith(`${UI_SESSION_COOKIE}=`)).toBe(true);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Strict/i);
    expect(setCookie).toMatch(/; Path=\/api\/homeport\/v1(;|$)/);
    expect(setCookie).toMatch(/; Max-Age=43200/);
    // A new tab has no token of its own: the cookie alone signs it in.
    const res = await fetch(url('/session'), { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { name: string } }).user.name).toBe('grace');
    expect((await fetch(url('/eventlog/streams'), { headers: { cookie } })).status).toBe(200);
  });

  it('is refused from another site’s page (the request a forged form or script would send)', async () => {
    const { cookie } = await signIn('heidi');
    for (const origin of ['https://evil.example', 'null']) {
      const res = await fetch(url('/eventlog/streams'), { headers: { cookie, origin } });
      expect(res.status).toBe(403);
    }
  });

  it('ends with sign-out, which clears it', async () => {
    const { cookie } = await signIn('ivan');
    const out = await fetch(url('/session'), { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(new RegExp(`^${UI_SESSION_COOKIE}=;`));
    expect((await fetch(url('/session'), { headers: { cookie } })).status).toBe(401);
  });

  it('ends with the account: a removed user’s cookie no longer signs in', async () => {
    const { cookie } = await signIn('judy');
    await server.hp.eventLog.users.remove('judy');
    expect((await fetch(url('/session'), { headers: { cookie } })).status).toBe(401);
  });
});

import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appToken, registerApp, startSocialTestServer, type SocialTestServer } from '../../../testing/harness.ts';

let server: SocialTestServer;
let app: Awaited<ReturnType<typeof registerApp>>;
let appAccessToken: string;

// A server per test: sign-ups are limited to 5 per 30 minutes per IP address, and every test signs up.
beforeEach(async () => {
  server = await startSocialTestServer();
  await server.createUser('owner', { role: 'owner' });
  app = await registerApp(server);
  appAccessToken = await appToken(server, app, 'read write follow push');
});

afterEach(async () => {
  await server?.close();
});

function confirmationLink(text: string): string {
  const m = /(http:\/\/\S+\/auth\/confirmation\?confirmation_token=[A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error(`no confirmation link in: ${text}`);
  return m[1];
}

async function registerRaw(body: Record<string, unknown>, token = appAccessToken) {
  const res = await server.fetch(`${server.url}/api/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

describe('registration', () => {
  it('creates an unconfirmed user, returns a token, mails a working confirmation link', async () => {
    server.admin.setSetting('registrations', 'open');
    const client = server.masto(appAccessToken);
    const token = await client.v1.accounts.create({
      username: 'newbie',
      email: 'newbie@example.org',
      password: 'a good password',
      agreement: true,
      locale: 'de',
    });
    expect(token.scope).toBe('read write follow push');

    const user = server.masto(token.accessToken);
    await expect(user.v1.accounts.verifyCredentials()).rejects.toMatchObject({
      statusCode: 403,
      message: 'Your login is missing a confirmed e-mail address',
    });
    // Lookup finds the unconfirmed account (so a client can check the name); /accounts/:id does not.
    const found = await server.masto().v1.accounts.lookup({ acct: '  newbie  ' });
    expect(found.username).toBe('newbie');
    await expect(server.masto().v1.accounts.$select(found.id).fetch()).rejects.toMatchObject({ statusCode: 404 });

    const [mail] = server.social.listOutbox({ to: 'newbie@example.org' });
    expect(mail).toMatchObject({ transport: 'local', status: 'stored' });
    const link = confirmationLink(mail.text);
    expect(link.startsWith(server.url)).toBe(true);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('E-mail address confirmed');
    expect((await fetch(link)).status).toBe(404);

    const me = await user.v1.accounts.verifyCredentials();
    expect(me.username).toBe('newbie');
    expect(me.source.privacy).toBe('public');
  });

  it('answers blank or bad data with 422 and per-field details', async () => {
    server.admin.setSetting('registrations', 'open');
    const blank = await registerRaw({ username: '', email: '', password: '', agreement: false, locale: 'en' });
    expect(blank.status).toBe(422);
    expect(blank.body.details).toEqual({
      agreement: [{ error: 'ERR_ACCEPTED', description: 'must be accepted' }],
      email: [
        { error: 'ERR_BLANK', description: "can't be blank" },
        { error: 'ERR_INVALID', description: 'is invalid' },
      ],
      password: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      username: [{ error: 'ERR_BLANK', description: "can't be blank" }],
    });
    expect(blank.body.error).toMatch(/^Validation failed: /);

    const bad = await registerRaw({
      username: 'owner',
      email: 'owner@example.org',
      password: 'short',
      agreement: 'true',
      locale: 'not a locale!',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.username[0].error).toBe('ERR_TAKEN');
    expect(bad.body.details.email[0].error).toBe('ERR_TAKEN');
    expect(bad.body.details.password[0].error).toBe('ERR_TOO_SHORT');
    // Mastodon quietly drops a locale it does not know instead of refusing the sign-up.
    expect(bad.body.details.locale).toBeUndefined();

    // An unknown locale is dropped, and a full timestamp as date_of_birth (what masto.js sends) counts by its date.
    const quirky = await registerRaw({
      username: 'quirky',
      email: 'quirky@example.org',
      password: 'long enough pw',
      agreement: true,
      locale: 'not a locale!',
      date_of_birth: '2000-01-01T00:00:00.000Z',
    });
    expect(quirky.status).toBe(200);
    const quirkyUser = server.social.context.store.users.byAccountId(
      server.social.context.store.accounts.byHandle('quirky', null)!.id,
    )!;
    expect(quirkyUser.locale).toBeNull();
    expect(quirkyUser.dateOfBirth).toBe('2000-01-01');

    const reserved = await registerRaw({
      username: 'Admin',
      email: 'x@example.org',
      password: 'long enough pw',
      agreement: true,
      locale: 'en',
    });
    expect(reserved.body.details.username[0].error).toBe('ERR_RESERVED');
    const invalid = await registerRaw({
      username: 'no spaces!',
      email: 'y@example.org',
      password: 'x'.repeat(80),
      agreement: true,
      locale: 'en',
    });
    expect(invalid.body.details).toEqual({
      username: [{ error: 'ERR_INVALID', description: 'must contain only letters, numbers and underscores' }],
      password: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 72 characters)' }],
    });
  });

  it('follows the registration mode: closed refuses, approval leaves the user pending', async () => {
    server.admin.setSetting('registrations', 'closed');
    const closed = await registerRaw({
      username: 'late',
      email: 'late@example.org',
      password: 'long enough pw',
      agreement: true,
      locale: 'en',
    });
    expect(closed.status).toBe(403);
    expect((await server.masto().v2.instance.fetch()).registrations).toMatchObject({
      enabled: false,
      approvalRequired: false,
    });

    server.admin.setSetting('registrations', 'approval');
    expect((await server.masto().v2.instance.fetch()).registrations).toMatchObject({
      enabled: true,
      approvalRequired: true,
    });
    const pending = await registerRaw({
      username: 'pending',
      email: 'pending@example.org',
      password: 'long enough pw',
      agreement: true,
      locale: 'en',
      reason: 'I would like to join',
    });
    expect(pending.status).toBe(200);
    const user = server.masto(pending.body.access_token);
    await fetch(confirmationLink(server.social.listOutbox({ to: 'pending@example.org' })[0].text));
    await expect(user.v1.accounts.verifyCredentials()).rejects.toMatchObject({
      statusCode: 403,
      message: 'Your login is currently pending approval',
    });
    server.admin.applyUserAction('pending', 'approve');
    expect((await user.v1.accounts.verifyCredentials()).username).toBe('pending');
  });

  it('resends the confirmation only for the signing-up app, changing the address while unconfirmed', async () => {
    server.admin.setSetting('registrations', 'open');
    const reg = await registerRaw({
      username: 'typo',
      email: 'tpyo@example.org',
      password: 'long enough pw',
      agreement: true,
      locale: 'en',
    });
    const userToken = reg.body.access_token as string;
    const res = await server.fetch(`${server.url}/api/v1/emails/confirmations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${userToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'typo@example.org' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const [mail] = server.social.listOutbox({ to: 'typo@example.org' });
    expect(mail).toBeDefined();

    // The same user through another application may not ask.
    const { token: cliToken } = server.admin.createToken('typo', 'read write');
    const foreign = await server.fetch(`${server.url}/api/v1/emails/confirmations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cliToken}` },
    });
    expect(foreign.status).toBe(403);

    await fetch(confirmationLink(mail.text));
    const after = await server.fetch(`${server.url}/api/v1/emails/confirmations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${userToken}` },
    });
    expect(after.status).toBe(403);
    expect(((await server.masto(userToken).v1.accounts.verifyCredentials()) as { username: string }).username).toBe(
      'typo',
    );
  });

  it('sends the confirmation through SMTP when configured', async () => {
    const received: string[] = [];
    let arrived!: () => void;
    const delivered = new Promise<void>((resolve) => (arrived = resolve));
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push(data);
          callback();
          arrived();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    try {
      const port = (smtp.server.address() as AddressInfo).port;
      server.admin.setSetting('registrations', 'open');
      server.admin.setSetting('smtp_url', `smtp://127.0.0.1:${port}`);
      server.admin.setSetting('smtp_from', 'Homeport <noreply@example.org>');
      const reg = await registerRaw({
        username: 'mailed',
        email: 'mailed@example.org',
        password: 'long enough pw',
        agreement: true,
        locale: 'en',
      });
      expect(reg.status).toBe(200);
      await delivered;
      await server.social.context.mailer.idle();
      expect(received[0]).toContain('To: mailed@example.org');
      // Quoted-printable may wrap long lines: undo soft breaks before looking for the link.
      const body = received[0].replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const page = await fetch(confirmationLink(body));
      expect(page.status).toBe(200);
      expect(server.social.listOutbox({ to: 'mailed@example.org' })[0]).toMatchObject({
        transport: 'smtp',
        status: 'sent',
      });
      expect((await server.masto(reg.body.access_token).v1.accounts.verifyCredentials()).username).toBe('mailed');
    } finally {
      server.admin.setSetting('smtp_url', '');
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('needs a client-credentials token with write:accounts', async () => {
    const res = await server.fetch(`${server.url}/api/v1/accounts`, {
      method: 'POST',
      body: new URLSearchParams({ username: 'x' }),
    });
    expect(res.status).toBe(401);
    const readOnly = await appToken(server, app, 'read');
    const scoped = await registerRaw(
      { username: 'ro', email: 'ro@example.org', password: 'long enough pw', agreement: true, locale: 'en' },
      readOnly,
    );
    expect(scoped.status).toBe(403);
  });
});

describe('sign-up rate limit', () => {
  it('allows 5 sign-ups per 30 minutes per IP address, then answers 429', async () => {
    const fresh = await startSocialTestServer();
    try {
      fresh.admin.setSetting('registrations', 'open');
      const freshApp = await registerApp(fresh);
      const token = await appToken(fresh, freshApp, 'write:accounts');
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 6; i++) {
        last = await fresh.fetch(`${fresh.url}/api/v1/accounts`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          // Invalid sign-ups count too: the limit protects the endpoint, not only successful sign-ups.
          body: JSON.stringify({
            username: `u${i}`,
            email: `u${i}@example.org`,
            password: i % 2 ? 'long enough pw' : '',
            agreement: true,
            locale: 'en',
          }),
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([422, 200, 422, 200, 422, 429]);
      expect(await last!.json()).toEqual({ error: 'Too many requests' });
      expect(last!.headers.get('x-ratelimit-limit')).toBe('5');
      expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number.isNaN(Date.parse(last!.headers.get('x-ratelimit-reset')!))).toBe(false);
    } finally {
      await fresh.close();
    }
  });
});

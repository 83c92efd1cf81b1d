import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Homeport } from '../index.ts';
import { startCliTestServer, type CliTestServer } from './testing/cli-server.ts';

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'homeport.js');

let server: CliTestServer;
let hp: Homeport;
let dir: string;

beforeAll(async () => {
  server = await startCliTestServer('social-cli');
  ({ hp, dir } = server);
});

afterAll(async () => {
  await server?.close();
});

/** Runs one CLI invocation in this process against the running server's data directory. */
const cli = (...args: string[]) => server.cli(...args);

async function api(token: string, urlPath: string) {
  const res = await fetch(`${hp.httpUrl}${urlPath}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('homeport accounts / tokens / settings while the server runs', () => {
  it('creates the owner with a generated password, which signs in to the UI by username or e-mail', async () => {
    const created = await cli(
      'accounts',
      'create',
      'captain',
      '--email',
      'captain@example.org',
      '--role',
      'owner',
      '--confirmed',
    );
    expect(created.code).toBe(0);
    expect(created.out[0]).toMatch(/^Created @captain \(id \d+, role owner\)$/);
    const password = /^New password: (\S+)$/.exec(created.out[1])![1];

    expect(await hp.social.checkOwnerCredentials('captain', password)).toEqual({ name: 'captain' });
    expect(await hp.social.checkOwnerCredentials('Captain@Example.org', password)).toEqual({ name: 'captain' });
    expect(await hp.social.checkOwnerCredentials('captain', 'wrong')).toBeNull();
    const session = await fetch(`${hp.httpUrl}/api/homeport/v1/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'captain@example.org', password }),
    });
    expect(session.status).toBe(200);

    const duplicate = await cli('accounts', 'create', 'Captain', '--email', 'other@example.org');
    expect(duplicate.code).toBe(2);
    expect(duplicate.err[0]).toBe('homeport: username has already been taken');
  });

  it('prints a bearer token the running server accepts, with exactly the scopes asked for', async () => {
    // A separate process, as an owner would run it next to `homeport serve`.
    const { stdout } = await exec(process.execPath, [
      BIN,
      'tokens',
      'create',
      'captain',
      '--scopes',
      'read write follow push',
      '--data-dir',
      dir,
    ]);
    const token = stdout.trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await api(token, '/api/v1/accounts/verify_credentials');
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('captain');
    expect(me.body.role.name).toBe('Owner');

    const readOnly = (await cli('tokens', 'create', 'captain', '--scopes', 'read:accounts')).out[0];
    expect((await api(readOnly, '/api/v1/accounts/verify_credentials')).status).toBe(200);
    expect((await api(readOnly, '/api/v1/blocks')).status).toBe(403);
    expect((await cli('tokens', 'create', 'captain', '--scopes', 'read nonsense')).err[0]).toBe(
      'homeport: unknown scope nonsense',
    );
    expect((await cli('tokens', 'create', 'nobody', '--scopes', 'read')).err[0]).toBe(
      'homeport: no local account "nobody"',
    );
  });

  it('changes registrations at once on the running server', async () => {
    for (const [mode, enabled, approval] of [
      ['open', true, false],
      ['closed', false, false],
      ['approval', true, true],
    ] as const) {
      expect((await cli('settings', 'set', 'registrations', mode)).code).toBe(0);
      const instance = (await (await fetch(`${hp.httpUrl}/api/v2/instance`)).json()) as {
        registrations: { enabled: boolean; approval_required: boolean };
      };
      expect(instance.registrations).toMatchObject({ enabled, approval_required: approval });
    }
    const bad = await cli('settings', 'set', 'registrations', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toMatch(/invalid value for registrations/);
    expect((await cli('settings', 'set', 'nonsense', 'x')).err[0]).toMatch(/unknown setting "nonsense"/);
    expect((await cli('settings', 'get', 'registrations')).out).toEqual(['registrations = "approval"']);
  });

  it('reads the password of a new account from standard input, never from the command line', async () => {
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'accounts',
        'create',
        'purser',
        '--email',
        'purser@example.org',
        '--password-stdin',
        '--confirmed',
        '--data-dir',
        dir,
      ],
      {
        input: 'purser secret pw\n',
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/New password/);
    expect(await hp.social.context.accounts.authenticate('purser', 'purser secret pw')).not.toBeNull();
    const both = await cli(
      'accounts',
      'create',
      'x2',
      '--email',
      'x2@example.org',
      '--password',
      'abcdefghij',
      '--password-stdin',
    );
    expect(both.err[0]).toBe('homeport: give either --password or --password-stdin, not both');
  });

  it('confirms, approves, suspends, unsuspends and deletes accounts', async () => {
    const created = await cli(
      'accounts',
      'create',
      'deckhand',
      '--email',
      'deckhand@example.org',
      '--password',
      'a long password',
      '--approved',
    );
    expect(created.out).toEqual([expect.stringMatching(/unconfirmed: a confirmation e-mail was written/)]);
    expect(hp.social.listOutbox({ to: 'deckhand@example.org' })).toHaveLength(1);
    const token = (await cli('tokens', 'create', 'deckhand', '--scopes', 'read')).out[0];
    expect((await api(token, '/api/v1/accounts/verify_credentials')).status).toBe(403);

    expect((await cli('accounts', 'confirm', 'deckhand')).out).toEqual(['@deckhand: confirmed']);
    expect((await api(token, '/api/v1/accounts/verify_credentials')).status).toBe(200);

    expect((await cli('accounts', 'suspend', '@deckhand')).code).toBe(0);
    // Refused while suspended (not revoked, as Mastodon): the same token works again once lifted.
    expect((await api(token, '/api/v1/accounts/verify_credentials')).status).toBe(403);
    const captainToken = (await cli('tokens', 'create', 'captain', '--scopes', 'read')).out[0];
    const id = (await api(captainToken, '/api/v1/accounts/lookup?acct=deckhand')).body.id as string;
    expect((await api(captainToken, `/api/v1/accounts/${id}`)).body).toMatchObject({
      suspended: true,
      display_name: '',
    });

    expect((await cli('accounts', 'unsuspend', 'deckhand')).out).toEqual(['@deckhand: unsuspended']);
    expect((await api(captainToken, `/api/v1/accounts/${id}`)).body).not.toHaveProperty('suspended');
    expect((await api(token, '/api/v1/accounts/verify_credentials')).status).toBe(200);
    expect((await cli('accounts', 'approve', 'deckhand')).code).toBe(0);

    expect((await cli('accounts', 'delete', 'deckhand')).out).toEqual(['@deckhand: deleted']);
    expect((await api(captainToken, `/api/v1/accounts/${id}`)).status).toBe(404);
    // The name stays taken so nobody can impersonate the deleted account.
    expect((await cli('accounts', 'create', 'deckhand', '--email', 'new@example.org')).code).toBe(2);
    expect((await cli('accounts', 'confirm', 'deckhand')).err[0]).toBe('homeport: no local account "deckhand"');
  });

  it('manages the server rules', async () => {
    const added = await cli('rules', 'add', 'Be excellent to each other', '--hint', 'Really.');
    const id = /^rule (\d+) added$/.exec(added.out[0])![1];
    expect((await cli('rules', 'list')).out).toEqual([`${id}\tBe excellent to each other\t(Really.)`]);
    const rules = (await (await fetch(`${hp.httpUrl}/api/v1/instance/rules`)).json()) as { id: string }[];
    expect(rules.map((r) => r.id)).toEqual([id]);
    expect((await cli('rules', 'remove', id)).code).toBe(0);
    expect((await cli('rules', 'remove', id)).code).toBe(2);
  });

  it('explains usage errors', async () => {
    expect((await cli('accounts', 'create', 'x')).err[0]).toBe('homeport: --email is required');
    expect((await cli('accounts', 'create', 'mate', '--email', 'mate@example.org', '--role', 'captain')).err[0]).toBe(
      'homeport: --role must be one of owner, admin, moderator, user',
    );
    expect((await cli('accounts', 'create', 'mate', '--email', 'not-an-email')).err[0]).toBe(
      'homeport: email is invalid',
    );
    expect((await cli('tokens', 'create', 'captain')).err[0]).toBe('homeport: --scopes is required');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appToken,
  registerApp,
  startSocialTestServer,
  type SocialTestServer,
  type TestUser,
} from '../../../testing/harness.ts';

/* The admin API's moderation lists (domain blocks and allows, e-mail and IP blocks) and report handling. */

let server: SocialTestServer;
let admin: TestUser;
let moderator: TestUser;
let reporter: TestUser;
let troll: TestUser;

const ADMIN_SCOPES = 'read write follow admin:read admin:write';

beforeAll(async () => {
  server = await startSocialTestServer();
  admin = await server.createUser('boss', { role: 'admin', scopes: ADMIN_SCOPES });
  moderator = await server.createUser('moddy', { role: 'moderator', scopes: ADMIN_SCOPES });
  [reporter, troll] = await Promise.all([server.createUser('reporter'), server.createUser('troll')]);
  server.admin.setSetting('registrations', 'open');
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  server.call(token, method, path, body);

async function signUp(username: string, email: string) {
  const app = await registerApp(server);
  const token = await appToken(server, app, 'read write');
  return call(token, 'POST', '/api/v1/accounts', {
    username,
    email,
    password: 'correct-horse-battery',
    agreement: true,
    locale: 'en',
  });
}

describe('domain blocks and allows', () => {
  it('blocks domains with a validated severity, refuses a second block with the existing one, edits and lifts them', async () => {
    const made = await call(admin.token, 'POST', '/api/v1/admin/domain_blocks', {
      domain: 'Spam.Example',
      severity: 'suspend',
      reject_media: true,
      public_comment: 'spam',
    });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      domain: 'spam.example',
      severity: 'suspend',
      reject_media: true,
      public_comment: 'spam',
      obfuscate: false,
    });
    const again = await call(admin.token, 'POST', '/api/v1/admin/domain_blocks', {
      domain: 'sub.spam.example',
      severity: 'silence',
    });
    expect(again.status).toBe(422);
    expect(again.body.existing_domain_block).toMatchObject({ id: made.body.id, domain: 'spam.example' });
    expect(
      (await call(admin.token, 'POST', '/api/v1/admin/domain_blocks', { domain: 'x.example', severity: 'obliterate' }))
        .status,
    ).toBe(422);
    expect((await call(moderator.token, 'POST', '/api/v1/admin/domain_blocks', { domain: 'y.example' })).status).toBe(
      403,
    );

    const edited = await call(admin.token, 'PUT', `/api/v1/admin/domain_blocks/${made.body.id}`, {
      severity: 'silence',
      private_comment: 'watch',
    });
    expect(edited.body).toMatchObject({ severity: 'silence', private_comment: 'watch', reject_media: true });
    // The public list shows silenced and suspended domains to signed-in users.
    expect(
      (await call(reporter.token, 'GET', '/api/v1/instance/domain_blocks')).body.map(
        (b: { domain: string }) => b.domain,
      ),
    ).toEqual(['spam.example']);
    expect((await call(admin.token, 'GET', '/api/v1/admin/domain_blocks')).body).toHaveLength(1);
    expect((await call(admin.token, 'DELETE', `/api/v1/admin/domain_blocks/${made.body.id}`)).body).toEqual({});
    expect((await call(admin.token, 'GET', `/api/v1/admin/domain_blocks/${made.body.id}`)).status).toBe(404);

    const allowed = await call(admin.token, 'POST', '/api/v1/admin/domain_allows', { domain: 'friends.example' });
    expect(allowed.body).toMatchObject({ domain: 'friends.example' });
    expect(
      (await call(admin.token, 'POST', '/api/v1/admin/domain_allows', { domain: 'friends.example' })).body.id,
    ).toBe(allowed.body.id);
    expect(
      (await call(admin.token, 'GET', '/api/v1/admin/domain_allows')).body.map((a: { id: string }) => a.id),
    ).toEqual([allowed.body.id]);
    expect((await call(admin.token, 'DELETE', `/api/v1/admin/domain_allows/${allowed.body.id}`)).status).toBe(200);
  });
});

describe('e-mail and IP blocks', () => {
  it('refuses sign-ups from blocked e-mail domains and canonical addresses, and from blocked networks', async () => {
    const domain = await call(admin.token, 'POST', '/api/v1/admin/email_domain_blocks', {
      domain: 'throwaway.example',
    });
    expect(domain.body).toMatchObject({ domain: 'throwaway.example' });
    expect(domain.body.history).toHaveLength(7);
    expect(
      (await call(admin.token, 'POST', '/api/v1/admin/email_domain_blocks', { domain: 'throwaway.example' })).status,
    ).toBe(422);
    const refused = await signUp('newbie', 'me@mail.throwaway.example');
    expect(refused.status).toBe(422);
    expect(refused.body.details.email[0].error).toBe('ERR_BLOCKED');

    const canonical = await call(admin.token, 'POST', '/api/v1/admin/canonical_email_blocks', {
      email: 'Some.One+spam@example.net',
    });
    expect(canonical.body.canonical_email_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(
      (
        await call(admin.token, 'POST', '/api/v1/admin/canonical_email_blocks/test', { email: 'someone@example.net' })
      ).body.map((b: { id: string }) => b.id),
    ).toEqual([canonical.body.id]);
    expect((await signUp('newbie', 'some.one@example.net')).status).toBe(422);
    expect(
      (await call(admin.token, 'DELETE', `/api/v1/admin/canonical_email_blocks/${canonical.body.id}`)).status,
    ).toBe(200);
    expect((await signUp('newbie', 'some.one@example.net')).status).toBe(200);

    const approval = await call(admin.token, 'POST', '/api/v1/admin/ip_blocks', {
      ip: '127.0.0.1',
      severity: 'sign_up_requires_approval',
      comment: 'loopback',
    });
    expect(approval.body).toMatchObject({
      ip: '127.0.0.1/32',
      severity: 'sign_up_requires_approval',
      comment: 'loopback',
      expires_at: null,
    });
    expect((await signUp('waits', 'waits@example.net')).status).toBe(200);
    expect(
      (await call(admin.token, 'GET', '/api/v2/admin/accounts?status=pending')).body.map(
        (a: { username: string }) => a.username,
      ),
    ).toEqual(['waits']);
    const block = await call(admin.token, 'PUT', `/api/v1/admin/ip_blocks/${approval.body.id}`, {
      severity: 'sign_up_block',
      expires_in: 3600,
    });
    expect(block.body.expires_at).not.toBeNull();
    expect((await signUp('blocked', 'blocked@example.net')).status).toBe(422);
    expect(
      (await call(admin.token, 'POST', '/api/v1/admin/ip_blocks', { ip: '300.1.1.1', severity: 'no_access' })).status,
    ).toBe(422);

    // no_access cuts the network off from everything; only another process's admin could lift it then.
    const range = await call(admin.token, 'PUT', `/api/v1/admin/ip_blocks/${approval.body.id}`, {
      ip: '127.0.0.0/8',
      severity: 'no_access',
    });
    expect(range.body.ip).toBe('127.0.0.0/8');
    expect((await server.fetch(`${server.url}/api/v1/instance`)).status).toBe(403);
    server.social.context.store.moderation.removeIpBlock(approval.body.id);
    expect((await server.fetch(`${server.url}/api/v1/instance`)).status).toBe(200);
  });
});

describe('reports', () => {
  it('lists open reports to moderators, who assign, categorize, act on and resolve them', async () => {
    server.admin.addRule('No trolling');
    const rule = server.admin.listRules()[0];
    const post = await server.masto(troll.token).v1.statuses.create({ status: 'bait' });
    const report = await server
      .masto(reporter.token)
      .v1.reports.create({ accountId: troll.accountId, statusIds: [post.id], comment: 'trolling', category: 'other' });

    const open = await call(moderator.token, 'GET', '/api/v1/admin/reports');
    expect(open.body.map((r: { id: string }) => r.id)).toEqual([report.id]);
    expect(open.body[0]).toMatchObject({
      action_taken: false,
      comment: 'trolling',
      account: { username: 'reporter' },
      target_account: { username: 'troll' },
      statuses: [{ id: post.id }],
    });

    expect(
      (await call(moderator.token, 'POST', `/api/v1/admin/reports/${report.id}/assign_to_self`)).body.assigned_account
        .username,
    ).toBe('moddy');
    const categorized = await call(moderator.token, 'PUT', `/api/v1/admin/reports/${report.id}`, {
      category: 'violation',
      rule_ids: [rule.id],
    });
    expect(categorized.body).toMatchObject({ category: 'violation', rules: [{ id: rule.id, text: 'No trolling' }] });
    expect(
      (await call(moderator.token, 'PUT', `/api/v1/admin/reports/${report.id}`, { rule_ids: ['999'] })).status,
    ).toBe(422);

    // An action that names the report resolves it.
    await call(moderator.token, 'POST', `/api/v1/admin/accounts/${troll.accountId}/action`, {
      type: 'silence',
      report_id: report.id,
    });
    const resolved = await call(moderator.token, 'GET', `/api/v1/admin/reports/${report.id}`);
    expect(resolved.body).toMatchObject({ action_taken: true, action_taken_by_account: { username: 'moddy' } });
    expect((await call(moderator.token, 'GET', '/api/v1/admin/reports')).body).toEqual([]);
    expect(
      (await call(moderator.token, 'GET', '/api/v1/admin/reports?resolved=true')).body.map((r: { id: string }) => r.id),
    ).toEqual([report.id]);

    expect((await call(moderator.token, 'POST', `/api/v1/admin/reports/${report.id}/reopen`)).body.action_taken).toBe(
      false,
    );
    expect(
      (await call(moderator.token, 'POST', `/api/v1/admin/reports/${report.id}/unassign`)).body.assigned_account,
    ).toBeNull();
    expect((await call(moderator.token, 'POST', `/api/v1/admin/reports/${report.id}/resolve`)).body.action_taken).toBe(
      true,
    );
    expect((await call(reporter.token, 'GET', '/api/v1/admin/reports')).status).toBe(403);
  });
});

describe('moderator deletion', () => {
  it('lets staff who handle reports delete anyone’s status, and tells its author with a moderation warning', async () => {
    const post = await server.masto(troll.token).v1.statuses.create({ status: 'over the line' });
    expect((await call(reporter.token, 'DELETE', `/api/v1/statuses/${post.id}`)).status).toBe(404);
    const removed = await call(moderator.token, 'DELETE', `/api/v1/statuses/${post.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.text).toBe('over the line');
    expect((await call(troll.token, 'GET', `/api/v1/statuses/${post.id}`)).status).toBe(404);
    const [note] = (await call(troll.token, 'GET', '/api/v1/notifications?types[]=moderation_warning')).body;
    expect(note).toMatchObject({
      type: 'moderation_warning',
      account: { username: 'moddy' },
      moderation_warning: { action: 'delete_statuses', status_ids: [post.id], target_account: { id: troll.accountId } },
    });
    const grouped = await call(troll.token, 'GET', '/api/v2/notifications?types[]=moderation_warning');
    expect(grouped.body.notification_groups[0].moderation_warning.action).toBe('delete_statuses');
  });
});

describe('admin API through a signed-in session', () => {
  it('accepts the sign-in cookie on admin routes only with the session’s CSRF token', async () => {
    const app = await registerApp(server, { redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' });
    const authorize = `/oauth/authorize?client_id=${app.clientId}&redirect_uri=urn:ietf:wg:oauth:2.0:oob&response_type=code&scope=read`;
    // The sign-in form (its CSRF cookie and field), then the session cookie.
    const form = await fetch(`${server.url}${authorize}`);
    const formCookie = (form.headers.get('set-cookie') ?? '').split(';')[0];
    const formCsrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())![1];
    const signedIn = await fetch(`${server.url}/auth/sign_in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
      body: new URLSearchParams({
        login: 'moddy',
        password: 'pw-moddy-correct-horse',
        return_to: authorize,
        csrf_token: formCsrf,
      }),
    });
    expect(signedIn.status).toBe(303);
    const session = (signedIn.headers.getSetCookie().find((c) => c.startsWith('homeport_session=')) ?? '').split(
      ';',
    )[0];
    // The server's own signed-in pages carry the session's CSRF token.
    const consent = await fetch(`${server.url}${authorize}`, { headers: { cookie: session } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await consent.text())![1];

    const withSession = (headers: Record<string, string>) =>
      server.fetch(`${server.url}/api/v1/admin/reports?resolved=true`, { headers: { cookie: session, ...headers } });
    expect((await withSession({})).status).toBe(422);
    expect((await withSession({ 'x-csrf-token': 'forged' })).status).toBe(422);
    const ok = await withSession({ 'x-csrf-token': csrf });
    expect(ok.status).toBe(200);
    expect(Array.isArray(await ok.json())).toBe(true);
    // Outside the admin API the cookie is no credential.
    expect(
      (
        await server.fetch(`${server.url}/api/v1/accounts/verify_credentials`, {
          headers: { cookie: session, 'x-csrf-token': csrf },
        })
      ).status,
    ).toBe(401);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../../testing/harness.ts';
import { useSocialTestServer } from '../../testing/use-server.ts';

/* Reports through masto.js: filed with statuses, rules and a category, checked, and shown to the staff as admin.report notifications carrying the report. */

const t = useSocialTestServer('alice', 'bob', 'carol');
let owner: TestUser;

beforeAll(async () => {
  owner = await t.server.createUser('owner', { role: 'owner' });
});

describe('reports', () => {
  it('are filed about an account and its statuses, and reach the staff', async () => {
    const rule = t.server.social.admin.addRule('Be kind');
    const rude = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'something rude' });
    const report = await t.server.masto(t.alice.token).v1.reports.create({
      accountId: t.bob.accountId,
      statusIds: [rude.id],
      ruleIds: [rule.id],
      comment: 'not kind',
      category: 'violation',
    });
    expect(report).toMatchObject({
      category: 'violation',
      comment: 'not kind',
      forwarded: false,
      actionTaken: false,
      statusIds: [rude.id],
      ruleIds: [rule.id],
    });
    expect(report.targetAccount.id).toBe(t.bob.accountId);

    const [note] = await t.server.masto(owner.token).v1.notifications.list({ types: ['admin.report'] });
    expect(note.account?.id).toBe(t.alice.accountId);
    expect(note.report?.id).toBe(report.id);
    const grouped = await t.server.masto(owner.token).v2.notifications.list({ types: ['admin.report'] } as never);
    expect(grouped.notificationGroups[0]).toMatchObject({ type: 'admin.report', report: { id: report.id } });
    // Not for users who are not staff.
    expect(await t.server.masto(t.bob.token).v1.notifications.list({ types: ['admin.report'] })).toEqual([]);
  });

  it('refuses statuses of someone else, unknown rules, rules outside the violation category, and unknown accounts', async () => {
    const mine = await t.server.masto(t.alice.token).v1.statuses.create({ status: 'mine' });
    const file = (body: Record<string, unknown>) =>
      t.server.fetch(`${t.server.url}/api/v1/reports`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.alice.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await file({ account_id: t.bob.accountId, status_ids: [mine.id] })).status).toBe(422);
    expect((await file({ account_id: t.bob.accountId, rule_ids: ['999'] })).status).toBe(422);
    const rule = t.server.social.admin.addRule('No spam');
    expect((await file({ account_id: t.bob.accountId, rule_ids: [rule.id], category: 'spam' })).status).toBe(422);
    expect((await file({ account_id: t.alice.accountId })).status).toBe(422);
    expect((await file({ account_id: '123456789' })).status).toBe(404);
    const readOnly = t.server.social.admin.createToken('alice', 'read').token;
    expect(
      (
        await t.server.fetch(`${t.server.url}/api/v1/reports`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' },
          body: JSON.stringify({ account_id: t.bob.accountId }),
        })
      ).status,
    ).toBe(403);
  });

  it('never carry a status the reporter cannot read: a hidden one answers as a missing id, and staff never see it', async () => {
    // Issue 25, finding 6: alice gets 404 on bob's direct message to carol, yet could file it to the staff.
    const dm = await t.server
      .masto(t.bob.token)
      .v1.statuses.create({ status: '@carol the secret', visibility: 'direct' });
    const followersOnly = await t.server
      .masto(t.bob.token)
      .v1.statuses.create({ status: 'friends', visibility: 'private' });
    expect(
      (
        await t.server.fetch(`${t.server.url}/api/v1/statuses/${dm.id}`, {
          headers: { Authorization: `Bearer ${t.alice.token}` },
        })
      ).status,
    ).toBe(404);
    const file = async (statusId: string) => {
      const res = await t.server.fetch(`${t.server.url}/api/v1/reports`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.alice.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ account_id: t.bob.accountId, status_ids: [statusId], comment: 'look' }),
      });
      return { status: res.status, body: await res.json() };
    };
    const missing = await file('123456789');
    expect(missing.status).toBe(422);
    expect(await file(dm.id)).toEqual(missing);
    expect(await file(followersOnly.id)).toEqual(missing);
    // carol, to whom it was sent, may report it.
    const byCarol = await t.server
      .masto(t.carol.token)
      .v1.reports.create({ accountId: t.bob.accountId, statusIds: [dm.id] });
    expect(byCarol.statusIds).toEqual([dm.id]);

    const adminView = await t.server.fetch(`${t.server.url}/api/v1/admin/reports?resolved=false`, {
      headers: { Authorization: `Bearer ${t.server.social.admin.createToken('owner', 'admin:read').token}` },
    });
    expect(adminView.status).toBe(200);
    const reports = (await adminView.json()) as { account: { id: string }; statuses: { id: string }[] }[];
    const fromAlice = reports.filter((r) => r.account.id === t.alice.accountId);
    expect(fromAlice.length).toBeGreaterThan(0);
    for (const report of fromAlice) expect(report.statuses.map((st) => st.id)).not.toContain(dm.id);
    expect(JSON.stringify(fromAlice)).not.toContain('the secret');
  });
});

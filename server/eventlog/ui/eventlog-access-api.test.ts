import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { UI_API_PREFIX } from '../../http/index.ts';
import { useEventLogUiApi } from './testing/ui-api.ts';

/** The event-log UI API's access: every route refuses a request without a session, and its users and bearer tokens are managed through it. */

const ui = useEventLogUiApi();
const { call } = ui;

describe('event-log UI API: sign-in, users and tokens', () => {
  it('answers 401 to every route without a token, WebSockets included', async () => {
    const routes: [string, string][] = [
      ['GET', '/eventlog/streams'],
      ['GET', '/eventlog/recent-streams'],
      ['GET', '/eventlog/categories'],
      ['GET', '/eventlog/streams/x'],
      ['DELETE', '/eventlog/streams/x'],
      ['GET', '/eventlog/streams/x/events'],
      ['POST', '/eventlog/streams/x/events'],
      ['GET', '/eventlog/streams/x/events/0'],
      ['GET', '/eventlog/streams/x/metadata'],
      ['PUT', '/eventlog/streams/x/metadata'],
      ['GET', '/eventlog/all'],
      ['GET', '/eventlog/connections'],
      ['GET', '/eventlog/activity'],
      ['GET', '/eventlog/subscriptions'],
      ['GET', '/eventlog/persistent-groups'],
      ['GET', '/eventlog/persistent-groups/s/g'],
      ['POST', '/eventlog/persistent-groups/s/g'],
      ['PUT', '/eventlog/persistent-groups/s/g'],
      ['DELETE', '/eventlog/persistent-groups/s/g'],
      ['GET', '/eventlog/persistent-groups/s/g/parked'],
      ['POST', '/eventlog/persistent-groups/s/g/parked/replay'],
      ['GET', '/eventlog/users'],
      ['POST', '/eventlog/users'],
      ['PUT', '/eventlog/users/ops/password'],
      ['DELETE', '/eventlog/users/ops'],
      ['GET', '/eventlog/tokens'],
      ['POST', '/eventlog/tokens'],
      ['DELETE', '/eventlog/tokens/x'],
    ];
    for (const [method, p] of routes) {
      const { status } = await call(p, {
        method,
        auth: false,
        body: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      expect({ method, p, status }).toEqual({ method, p, status: 401 });
    }
    const wsUrl = `${ui.hp.httpUrl.replace('http', 'ws')}${UI_API_PREFIX}/eventlog/live?stream=x`;
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(status).toBe(401);
  });

  it('manages event-log users', async () => {
    type Listed = { users: { name: string; defaultPassword: boolean }[] };
    const list = await call<Listed>('/eventlog/users');
    expect(list.body.users.map((u) => u.name)).toEqual(expect.arrayContaining(['admin', 'ops']));
    // ops keeps the public default password until someone changes it: the list says so, for the Server view's warning.
    const opsHasDefault = async () => (await call<Listed>('/eventlog/users')).body.users.find((u) => u.name === 'ops');
    expect(await opsHasDefault()).toMatchObject({ defaultPassword: true });
    expect(
      (await call('/eventlog/users/ops/password', { method: 'PUT', body: { password: 'ops-own-pass' } })).status,
    ).toBe(200);
    expect(await opsHasDefault()).toMatchObject({ defaultPassword: false });
    const added = await call('/eventlog/users', {
      method: 'POST',
      body: { name: 'reporter', password: 'first-pass', groups: ['readers'] },
    });
    expect(added.status).toBe(201);
    expect(await ui.hp.eventLog.users.authenticate('reporter', 'first-pass')).toMatchObject({
      name: 'reporter',
      groups: expect.arrayContaining(['readers']),
    });
    expect((await call('/eventlog/users', { method: 'POST', body: { name: 'reporter', password: 'x' } })).status).toBe(
      409,
    );
    expect((await call('/eventlog/users', { method: 'POST', body: { name: 'bad name', password: 'x' } })).status).toBe(
      400,
    );

    expect(
      (await call('/eventlog/users/reporter/password', { method: 'PUT', body: { password: 'second-pass' } })).status,
    ).toBe(200);
    expect(await ui.hp.eventLog.users.authenticate('reporter', 'second-pass')).not.toBeNull();
    expect(await ui.hp.eventLog.users.authenticate('reporter', 'first-pass')).toBeNull();
    expect((await call('/eventlog/users/nobody/password', { method: 'PUT', body: { password: 'x' } })).status).toBe(
      404,
    );

    expect((await call('/eventlog/users/admin', { method: 'DELETE' })).status).toBe(400);
    expect((await call('/eventlog/users/reporter', { method: 'DELETE' })).status).toBe(200);
    expect(ui.hp.eventLog.users.get('reporter')).toBeUndefined();
  });

  it('issues, lists and revokes bearer tokens; the secret is shown once', async () => {
    type Info = { id: string; user: string; name: string; expiresAt: number | null };
    const own = await call<{ token: string; info: Info }>('/eventlog/tokens', {
      method: 'POST',
      body: { name: 'laptop', expiresInDays: 30 },
    });
    expect(own.status).toBe(201);
    expect(own.body.info).toMatchObject({ user: 'admin', name: 'laptop', expiresAt: expect.any(Number) });
    expect(ui.hp.eventLog.tokens.authenticate(own.body.token)).toMatchObject({ name: 'admin' });
    await ui.hp.eventLog.users.add({ name: 'pipeline', password: 'pipeline-pass' });
    const theirs = await call<{ token: string; info: Info }>('/eventlog/tokens', {
      method: 'POST',
      body: { user: 'pipeline' },
    });
    expect(theirs.body.info).toMatchObject({ user: 'pipeline', expiresAt: null });

    const listed = await call<{ tokens: Info[] }>('/eventlog/tokens');
    expect(listed.body.tokens.map((t) => t.id).sort()).toEqual([own.body.info.id, theirs.body.info.id].sort());
    expect(JSON.stringify(listed.body)).not.toContain(own.body.token);
    expect((await call<{ tokens: Info[] }>('/eventlog/tokens?user=pipeline')).body.tokens).toHaveLength(1);

    for (const body of [{ user: 'nobody' }, { expiresInDays: 0 }, { name: 'x'.repeat(201) }])
      expect((await call('/eventlog/tokens', { method: 'POST', body })).status).toBeGreaterThanOrEqual(400);
    expect((await call(`/eventlog/tokens/${theirs.body.info.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(ui.hp.eventLog.tokens.authenticate(theirs.body.token)).toBeNull();
    expect((await call(`/eventlog/tokens/${theirs.body.info.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

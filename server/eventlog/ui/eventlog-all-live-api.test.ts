import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { ExpectedVersion } from '../index.ts';
import { createHttpServer } from '../../http/server.ts';
import { registerUiApi, UI_API_PREFIX, UiSessions } from '../../http/index.ts';
import type { AllPage } from './all.ts';
import { eventLogUiRoutes } from './eventlog-api.ts';
import { eventLogUiDeps } from './eventlog-sources.ts';
import { openLive } from './testing/live-client.ts';
import { ADMIN, event, useEventLogUiApi } from './testing/ui-api.ts';

/** The event-log UI API's `$all` pages and live tails over WebSocket, with a tail that cannot keep up. */

const ui = useEventLogUiApi();
const { call, append } = ui;

describe('event-log UI API: $all and live tails', () => {
  it('pages $all both ways by position without gaps or repeats, hides system events, and filters', async () => {
    await append(
      'allpage-a',
      Array.from({ length: 30 }, (_, i) => event('Alpha', { i })),
    );
    await append(
      'allpage-b',
      Array.from({ length: 30 }, (_, i) => event('Beta', { i })),
    );
    const get = (q: string) => call<AllPage>(`/eventlog/all?${q}`);

    const newest = await get('count=25');
    expect(newest.status).toBe(200);
    expect(newest.body.events.every((e) => !e.streamId.startsWith('$') && !e.eventType.startsWith('$'))).toBe(true);
    expect(newest.body.events.at(-1)).toMatchObject({ streamId: 'allpage-b', eventNumber: 29 });
    expect(newest.body.hasNewer).toBe(false);

    // Walk backward over the whole log, then forward again; both walks see the same events once each.
    const backward: string[] = [];
    let page = newest.body;
    backward.unshift(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    while (page.hasOlder) {
      page = (
        await get(
          `count=25&direction=backward&commit=${page.older!.commitPosition}&prepare=${page.older!.preparePosition}`,
        )
      ).body;
      backward.unshift(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    }
    const forward: string[] = [];
    page = (await get('count=25&direction=forward')).body;
    forward.push(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    while (page.hasNewer) {
      page = (
        await get(
          `count=25&direction=forward&commit=${page.newer!.commitPosition}&prepare=${page.newer!.preparePosition}&exclusive=${page.newer!.exclusive}`,
        )
      ).body;
      forward.push(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    }
    expect(forward).toEqual(backward);
    expect(new Set(forward).size).toBe(forward.length);
    expect(forward.filter((k) => k.startsWith('allpage-a/'))).toEqual(
      Array.from({ length: 30 }, (_, i) => `allpage-a/${i}`),
    );

    const withSystem = await get('count=4096&hideSystem=false');
    expect(withSystem.body.events.some((e) => e.streamId.startsWith('$'))).toBe(true);

    const byStream = await get('count=100&streamPrefix=allpage-b');
    expect(byStream.body.events).toHaveLength(30);
    expect(byStream.body.events.every((e) => e.streamId === 'allpage-b')).toBe(true);
    const byType = await get('count=100&eventType=Alph');
    expect(byType.body.events).toHaveLength(30);
    expect(byType.body.events.every((e) => e.eventType === 'Alpha')).toBe(true);
    expect(byType.body.hasOlder).toBe(false);

    expect((await get('direction=forward&commit=-1&prepare=-1')).status).toBe(400);
  });

  it('tails a stream and $all live over WebSocket', async () => {
    const url = `${ui.hp.httpUrl.replace('http', 'ws')}${UI_API_PREFIX}/eventlog/live`;
    const stream = await openLive(`${url}?stream=live-1&access_token=${ui.token}`);
    const all = await openLive(`${url}?streamPrefix=live-&access_token=${ui.token}`);
    expect(stream.messages[0]).toMatchObject({ type: 'subscribed', lastEventNumber: -1 });
    await append('live-other', [event('Other', {})]);
    await append('live-1', [event('Hello', { n: 1 }), event('Hello', { n: 2 })]);
    const got = await stream.next((m) => m.type === 'events');
    expect(got.type === 'events' && got.events.map((e) => [e.eventNumber, e.data.text])).toEqual([
      [0, '{"n":1}'],
      [1, '{"n":2}'],
    ]);
    const fromAll = await all.until((events) => events.length >= 3);
    expect(fromAll.map((e) => e.streamId)).toEqual(['live-other', 'live-1', 'live-1']);
    expect(fromAll[0].position).toBeDefined();
    // Each tail is a volatile subscription like a TCP client's: the subscription monitor lists it.
    const listed = await call<{ subscriptions: { stream: string; connectionName: string; user: string | null }[] }>(
      '/eventlog/subscriptions',
    );
    const tails = listed.body.subscriptions.filter((v) => v.connectionName === 'Homeport UI (live tail)');
    expect(tails.map((v) => v.stream).sort()).toEqual(['$all', 'live-1']);
    stream.close();
    all.close();
    await vi.waitFor(async () => {
      const after = await call<{ subscriptions: { connectionName: string }[] }>('/eventlog/subscriptions');
      expect(after.body.subscriptions.filter((v) => v.connectionName === 'Homeport UI (live tail)')).toEqual([]);
    });
  });

  it('drops and counts events for a live tail that cannot keep up, instead of holding up writers', async () => {
    // A second HTTP server on the same event log, with a tiny live buffer, so overflow is certain.
    const sessions = new UiSessions();
    const app: FastifyInstance = await createHttpServer({
      logger: ui.hp.logger.child({ test: 'live-limits' }),
      rendererDir: null,
      plugins: [
        {
          name: 'ui-api',
          prefix: UI_API_PREFIX,
          plugin: registerUiApi({
            sessions,
            checkCredentials: async () => null,
            changePassword: async () => 'unsupported',
            serverInfo: () => {
              throw new Error('unused');
            },
            logs: ui.hp.logs,
            dataDir: ui.hp.config.dataDir,
            extraRoutes: [
              eventLogUiRoutes(
                eventLogUiDeps({ eventLog: ui.hp.eventLog, subscriptions: ui.hp.subscriptions, connections: () => [] }),
                { live: { maxBuffered: 5, maxBatch: 2, highWaterBytes: 1 << 20 } },
              ),
            ],
          }),
        },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const port = (app.server.address() as { port: number }).port;
      const t = sessions.mint({ name: 'owner', via: 'app-token' });
      const live = await openLive(
        `ws://127.0.0.1:${port}${UI_API_PREFIX}/eventlog/live?stream=flood-1&access_token=${t}`,
      );
      // One commit of 50 events reaches the tail as one batch: 5 fit, 45 are dropped and reported.
      const write = await ui.hp.eventLog.store.appendToStream(
        'flood-1',
        ExpectedVersion.Any,
        Array.from({ length: 50 }, (_, i) => event('Flood', { i })),
        ADMIN,
      );
      expect(write.result).toBe('Success');
      const skipped = await live.next((m) => m.type === 'skipped');
      expect(skipped).toEqual({ type: 'skipped', count: 45 });
      const events = await live.until((evs) => evs.length >= 5);
      expect(events.map((e) => e.eventNumber)).toEqual([0, 1, 2, 3, 4]);
      live.close();
    } finally {
      await app.close();
    }
  });
});

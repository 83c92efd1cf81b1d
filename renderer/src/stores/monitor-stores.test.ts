import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import es from 'node-eventstore-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHomeport, type Homeport } from '../../../server/index.ts';
import { setApiBase, setApiToken } from '../api/client.ts';
import { createGroup, useGroup } from './group.ts';
import { ACTIVITY_HISTORY_MS, groupRow, groupsByStream, mergeActivity, useMonitor, withRates } from './monitor.ts';
import { useUsers } from './users.ts';

// A real Homeport and a real TCP client (node-eventstore-client), watched through the stores.
let hp: Homeport;
let dataDir: string;
let client: es.EventStoreNodeConnection;

const silent = { debug() {}, info() {}, error() {} };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-monitor-'));
  hp = await startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
  });
  setApiBase(hp.httpUrl);
  setApiToken(hp.uiToken);
  client = es.createConnection(
    { defaultUserCredentials: new es.UserCredentials('admin', 'changeit'), log: silent },
    `tcp://127.0.0.1:${hp.tcpPort}`,
    'monitor-test-client',
  );
  const connected = new Promise((resolve) => client.once('connected', resolve));
  await client.connect();
  await connected;
});
afterAll(async () => {
  client.close();
  await hp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('monitor helpers', () => {
  it('turns two byte-counter samples into rates', () => {
    const previous = new Map([['c1', { at: 1000, rx: 100, tx: 50 }]]);
    const base = {
      connectionName: 'x',
      remoteAddress: '127.0.0.1:1',
      user: null,
      connectedAt: 0,
      pendingSendBytes: 0,
      pendingSendPackages: 0,
      tls: false,
    };
    const [known, fresh] = withRates(previous, 3000, [
      { ...base, id: 'c1', bytesReceived: 300, bytesSent: 50 },
      { ...base, id: 'c2', bytesReceived: 10, bytesSent: 10 },
    ]);
    expect([known.receiveRate, known.sendRate]).toEqual([100, 0]);
    expect([fresh.receiveRate, fresh.sendRate]).toEqual([null, null]);
  });

  it('estimates catch-up from the backlog and the rate, and groups by stream', () => {
    const g = {
      stream: 's',
      group: 'g',
      status: 'Live',
      averagePerSecond: 20,
      totalItemsProcessed: 0,
      totalItemsDelivered: 0,
      lastCheckpointedEventNumber: 10,
      lastProcessedEventNumber: 10,
      lastKnownEventNumber: 110,
      behindByMessages: 100,
      inFlight: 0,
      parkedCount: 0,
      connectionCount: 1,
      readBufferCount: 0,
      liveBufferCount: 0,
      retryBufferCount: 0,
      outstandingMessagesCount: 0,
    };
    expect(groupRow(g)).toMatchObject({ behind: 100, catchUpSeconds: 5 });
    expect(groupRow({ ...g, averagePerSecond: 0 }).catchUpSeconds).toBeNull();
    // Everything read and handed out: caught up, even while the checkpoint trails.
    expect(groupRow({ ...g, lastProcessedEventNumber: 110 })).toMatchObject({ behind: 0, catchUpSeconds: 0 });
    expect(groupRow({ ...g, lastKnownEventNumber: null }).behind).toBeNull();
    expect(
      groupsByStream([
        groupRow({ ...g, stream: 'b', group: 'y' }),
        groupRow({ ...g, stream: 'a' }),
        groupRow({ ...g, stream: 'b', group: 'x' }),
      ]).map((s) => [s.stream, s.groups.map((x) => x.group)]),
    ).toEqual([
      ['a', ['g']],
      ['b', ['x', 'y']],
    ]);
  });
});

describe('activity history', () => {
  const sample = (at: number) => ({ at, writtenPerSecond: 1, deliveredPerSecond: 0, lag: {} });
  it('adds only newer samples and keeps the last hour', () => {
    const history = [sample(1000), sample(2000)];
    expect(mergeActivity(history, [sample(2000)])).toBe(history);
    expect(mergeActivity(history, [sample(2000), sample(3000)]).map((s) => s.at)).toEqual([1000, 2000, 3000]);
    const later = ACTIVITY_HISTORY_MS + 1500;
    expect(mergeActivity(history, [sample(later)]).map((s) => s.at)).toEqual([2000, later]);
  });
});

describe('subscription stores', () => {
  it('lists the connected client, its live subscription and the groups', async () => {
    await client.subscribeToStream('watched-1', false, () => undefined);
    await createGroup('orders-m', 'billing', { startFrom: 0 });
    await useMonitor.getState().refresh();
    let m = useMonitor.getState();
    expect(m.error).toBeNull();
    expect(m.connections!.map((c) => c.connectionName)).toContain('monitor-test-client');
    expect(m.connections![0].receiveRate).toBeNull();
    expect(m.volatile).toContainEqual(
      expect.objectContaining({ stream: 'watched-1', connectionName: 'monitor-test-client', user: 'admin' }),
    );
    expect(m.groups).toContainEqual(
      expect.objectContaining({ stream: 'orders-m', group: 'billing', connectionCount: 0 }),
    );

    await client.appendToStream('watched-1', es.expectedVersion.any, [
      es.createJsonEventData(crypto.randomUUID(), { a: 1 }, null, 'A'),
    ]);
    await useMonitor.getState().refresh();
    m = useMonitor.getState();
    expect(m.connections![0].receiveRate).not.toBeNull();
    await vi.waitFor(async () => {
      await useMonitor.getState().refresh();
      expect(useMonitor.getState().volatile!.find((v) => v.stream === 'watched-1')!.delivered).toBe(1);
    });
    // The activity history (sampled by the server every second): the written event and its delivery show.
    await vi.waitFor(
      async () => {
        await useMonitor.getState().refresh();
        const activity = useMonitor.getState().activity;
        expect(activity.some((a) => a.writtenPerSecond > 0)).toBe(true);
        expect(activity.some((a) => a.deliveredPerSecond > 0)).toBe(true);
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  it('follows a group: a Nak with Park shows up as a parked message, and replay hands it back', async () => {
    const seen = new Set<string>();
    await client.connectToPersistentSubscription(
      'orders-m',
      'billing',
      (sub, e) => {
        const id = e.originalEvent!.eventId;
        // Park on first sight, accept when it comes back from the parked list.
        if (!seen.has(id)) {
          seen.add(id);
          sub.fail(e, es.PersistentSubscriptionNakEventAction.Park, 'not today');
        } else sub.acknowledge(e);
      },
      undefined,
      undefined,
      10,
      false,
    );
    await client.appendToStream('orders-m', es.expectedVersion.any, [
      es.createJsonEventData(crypto.randomUUID(), { order: 1 }, null, 'Placed'),
      es.createJsonEventData(crypto.randomUUID(), { order: 2 }, null, 'Placed'),
    ]);

    await useGroup.getState().open('orders-m', 'billing');
    await vi.waitFor(
      async () => {
        await useGroup.getState().refresh();
        expect(useGroup.getState().detail!.parkedCount).toBe(2);
      },
      { timeout: 10_000 },
    );
    const g = useGroup.getState();
    expect(g.detail!.connections).toHaveLength(1);
    expect(g.detail!.connections[0].connectionName).toBe('monitor-test-client');
    await g.loadParked();
    const parked = useGroup.getState().parked!;
    expect(parked.events.map((e) => e.target?.data.text)).toEqual(['{"order":1}', '{"order":2}']);
    expect(parked.events[0].linkTo).toEqual({ streamId: 'orders-m', eventNumber: 0 });

    expect(await useGroup.getState().replay(1)).toBe(1);
    await vi.waitFor(
      async () => {
        await useGroup.getState().refresh();
        expect(useGroup.getState().detail!.parkedCount).toBe(1);
      },
      { timeout: 10_000 },
    );
    expect(await useGroup.getState().replay(null)).toBe(1);
    await vi.waitFor(
      async () => {
        await useGroup.getState().refresh();
        expect(useGroup.getState().detail!.parkedCount).toBe(0);
      },
      { timeout: 10_000 },
    );
  });

  it('edits and deletes a group', async () => {
    await useGroup.getState().open('orders-m', 'billing');
    await useGroup.getState().update({ maxRetryCount: 4 });
    expect(useGroup.getState().detail!.settings.maxRetryCount).toBe(4);
    await useGroup.getState().remove();
    await useMonitor.getState().refresh();
    expect(useMonitor.getState().groups!.some((x) => x.stream === 'orders-m')).toBe(false);
    await expect(createGroup('$all', 'nope', {})).rejects.toThrow(/\$all/);
  });
});

describe('users store', () => {
  it('adds a user, changes the password and removes the user', async () => {
    const u = useUsers.getState();
    await u.load();
    expect(useUsers.getState().users!.map((x) => x.name)).toEqual(expect.arrayContaining(['admin', 'ops']));
    await u.add({ name: 'analyst', password: 'one', groups: ['readers'] });
    expect(useUsers.getState().users!.find((x) => x.name === 'analyst')).toMatchObject({ groups: ['readers'] });
    await expect(u.add({ name: 'analyst', password: 'two', groups: [] })).rejects.toThrow(/already exists/);
    await u.changePassword('analyst', 'two');
    expect(await hp.eventLog.users.authenticate('analyst', 'two')).not.toBeNull();
    expect(await hp.eventLog.users.authenticate('analyst', 'one')).toBeNull();
    await u.remove('analyst');
    expect(useUsers.getState().users!.some((x) => x.name === 'analyst')).toBe(false);
  });
});

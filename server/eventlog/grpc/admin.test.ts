import * as grpc from '@grpc/grpc-js';
import { jsonEvent, persistentSubscriptionToStreamSettingsFromDefaults, START } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer } from './testing/homeport.ts';
import { rawClient, streamCall, unaryCall } from './testing/raw.ts';
import { record } from './testing/subscriptions.ts';

const shared = useGrpcTestServer();
const USERS = 'event_store.client.users.Users';

describe('Users', () => {
  it('creates, lists, changes and resets passwords, deletes, with KurrentDB errors', async () => {
    const admin = rawClient(shared.server, USERS);
    await unaryCall(admin, 'Create', {
      options: { login_name: 'ada', password: 'first-pass', full_name: 'Ada L', groups: ['devs'] },
    });
    await expect(
      unaryCall(admin, 'Create', { options: { login_name: 'ada', password: 'x', full_name: 'Ada' } }),
    ).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
    const [details] = await streamCall<{ user_details: { login_name: string; full_name: string; groups: string[] } }>(
      admin,
      'Details',
      { options: { login_name: 'ada' } },
    );
    expect(details.user_details).toMatchObject({ login_name: 'ada', full_name: 'Ada L', groups: ['devs'] });
    const everyone = await streamCall<{ user_details: { login_name: string } }>(admin, 'Details', { options: {} });
    expect(everyone.map((d) => d.user_details.login_name)).toEqual(expect.arrayContaining(['admin', 'ops', 'ada']));

    const ada = rawClient(shared.server, USERS, { username: 'ada', password: 'first-pass' });
    await expect(
      unaryCall(ada, 'ChangePassword', {
        options: { login_name: 'ada', current_password: 'wrong', new_password: 'second-pass' },
      }),
    ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    await unaryCall(ada, 'ChangePassword', {
      options: { login_name: 'ada', current_password: 'first-pass', new_password: 'second-pass' },
    });
    ada.close();
    const adaNow = rawClient(shared.server, USERS, { username: 'ada', password: 'second-pass' });
    // a user sees only herself and may not create users
    await expect(streamCall(adaNow, 'Details', { options: {} })).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
    await expect(
      unaryCall(adaNow, 'Create', { options: { login_name: 'eve', password: 'x', full_name: 'Eve' } }),
    ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    adaNow.close();

    await unaryCall(admin, 'ResetPassword', { options: { login_name: 'ada', new_password: 'third-pass' } });
    expect(await shared.server.homeport.eventLog.users.authenticate('ada', 'third-pass')).not.toBeNull();
    await unaryCall(admin, 'Delete', { options: { login_name: 'ada' } });
    const missing = await unaryCall<never>(admin, 'Delete', { options: { login_name: 'ada' } }).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
    expect(missing.metadata.get('exception')).toEqual(['user-not-found']);
    admin.close();
  });

  it('updates, disables and enables users: a disabled account cannot sign in, an enabled one can again', async () => {
    const admin = rawClient(shared.server, USERS);
    const users = shared.server.homeport.eventLog.users;
    await unaryCall(admin, 'Create', { options: { login_name: 'bo', password: 'bo-pass', full_name: 'Bo' } });
    await unaryCall(admin, 'Update', { options: { login_name: 'bo', full_name: 'Bo Dee', groups: ['$ops'] } });
    const [details] = await streamCall<{ user_details: { full_name: string; groups: string[]; disabled: boolean } }>(
      admin,
      'Details',
      { options: { login_name: 'bo' } },
    );
    expect(details.user_details).toMatchObject({ full_name: 'Bo Dee', groups: ['$ops'], disabled: false });
    const bo = { username: 'bo', password: 'bo-pass' };
    const asBo = rawClient(shared.server, USERS, bo);
    await expect(streamCall(asBo, 'Details', { options: { login_name: 'bo' } })).resolves.toHaveLength(1);
    await expect(unaryCall(asBo, 'Disable', { options: { login_name: 'admin' } })).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });

    await unaryCall(admin, 'Disable', { options: { login_name: 'bo' } });
    expect(users.get('bo')?.disabled).toBe(true);
    // The same credentials, right after they worked, are refused now (no cached sign-in survives).
    await expect(streamCall(asBo, 'Details', { options: { login_name: 'bo' } })).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    await unaryCall(admin, 'Enable', { options: { login_name: 'bo' } });
    await expect(streamCall(asBo, 'Details', { options: { login_name: 'bo' } })).resolves.toHaveLength(1);
    asBo.close();
    const missing = await unaryCall<never>(admin, 'Disable', { options: { login_name: 'nobody' } }).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(missing.metadata.get('exception')).toEqual(['user-not-found']);
    await expect(
      unaryCall(admin, 'Update', { options: { login_name: 'bo', groups: ['has space'] } }),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    admin.close();
  });
});

describe('Operations', () => {
  it('starts a scavenge for operators only and stops it by id', async () => {
    const ops = rawClient(shared.server, 'event_store.client.operations.Operations', {
      username: 'ops',
      password: 'changeit',
    });
    const started = await unaryCall<{ scavenge_id: string; scavenge_result: string }>(ops, 'StartScavenge', {
      options: {},
    });
    expect(started.scavenge_result).toMatch(/^(STARTED|INPROGRESS)$/);
    expect(started.scavenge_id).toMatch(/^[0-9a-f-]{36}$/);
    const stop = await unaryCall<{ scavenge_result: string }>(ops, 'StopScavenge', {
      options: { scavenge_id: started.scavenge_id },
    }).catch((e) => e);
    // it may have finished already: then the id is no longer running
    if (stop instanceof Error) expect(stop).toMatchObject({ code: grpc.status.NOT_FOUND });
    else expect(stop.scavenge_result).toBe('STOPPED');
    const unknown = await unaryCall<never>(ops, 'StopScavenge', { options: { scavenge_id: 'nope' } }).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(unknown.metadata.get('exception')).toEqual(['scavenge-not-found']);
    ops.close();
    const anonymous = rawClient(shared.server, 'event_store.client.operations.Operations', null);
    await expect(unaryCall(anonymous, 'StartScavenge', { options: {} })).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
    anonymous.close();
  });

  it('answers the cluster operations as one node does, restarts persistent subscriptions, refuses Shutdown', async () => {
    const OPERATIONS = 'event_store.client.operations.Operations';
    const { client } = shared;
    await client.createPersistentSubscriptionToStream(
      'ops-restart',
      'g',
      persistentSubscriptionToStreamSettingsFromDefaults({ startFrom: START }),
    );
    const consumer = record(client.subscribeToPersistentSubscriptionToStream('ops-restart', 'g'));
    await client.appendToStream('ops-restart', jsonEvent({ type: 't', data: {} }));
    await consumer.until(() => consumer.events.length === 1);
    const ops = rawClient(shared.server, OPERATIONS, { username: 'ops', password: 'changeit' });
    for (const call of ['MergeIndexes', 'ResignNode', 'RestartPersistentSubscriptions']) await unaryCall(ops, call, {});
    // The restart dropped the consumer (it reconnects to the group, which resumes from its checkpoint).
    await expect(consumer.until(() => false)).rejects.toThrow();
    await unaryCall(ops, 'SetNodePriority', { priority: 3 });
    await expect(unaryCall(ops, 'Shutdown', {})).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
    ops.close();
    const anonymous = rawClient(shared.server, OPERATIONS, null);
    for (const call of ['MergeIndexes', 'ResignNode', 'SetNodePriority', 'RestartPersistentSubscriptions', 'Shutdown'])
      await expect(unaryCall(anonymous, call, {})).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    anonymous.close();
    // Still serving after all of it.
    const admin = rawClient(shared.server, USERS);
    await expect(streamCall(admin, 'Details', { options: { login_name: 'admin' } })).resolves.toHaveLength(1);
    admin.close();
  });
});

describe('Monitoring', () => {
  it('streams statistics to a signed-in user', async () => {
    const client = rawClient(shared.server, 'event_store.client.monitoring.Monitoring');
    const [first] = await streamCall<{ stats: Record<string, string> }>(client, 'Stats', {});
    expect(Number(first.stats['proc-id'])).toBe(process.pid);
    expect(Number(first.stats['es-lastCommitPosition'])).toBeGreaterThanOrEqual(0);
    // Three appends one after the other are three commits at least (system projections may add their own).
    for (let i = 0; i < 3; i++) await shared.client.appendToStream('monitored', jsonEvent({ type: 't', data: {} }));
    const [then] = await streamCall<{ stats: Record<string, string> }>(client, 'Stats', {});
    const commits = Number(then.stats['es-writer-commits']) - Number(first.stats['es-writer-commits']);
    expect(commits).toBeGreaterThanOrEqual(3);
    client.close();
  });
});

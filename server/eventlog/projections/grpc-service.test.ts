import { AccessDeniedError, jsonEvent, NotFoundError } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer } from '../grpc/testing/homeport.ts';
import { waitFor } from './testing/fixture.ts';

/** The gRPC Projections service through the official KurrentDB Node client, as an application calls it. */
describe('gRPC Projections service', () => {
  const shared = useGrpcTestServer({ runProjections: 'all' });

  it('creates, lists, reads state and result, and runs the commands', async () => {
    const { client, server } = shared;
    await client.appendToStream('meter-1', [
      jsonEvent({ type: 'Read', data: { kwh: 2 } }),
      jsonEvent({ type: 'Read', data: { kwh: 3 } }),
    ]);
    await client.createProjection(
      'meters',
      `fromCategory('meter').foreachStream().when({ $init: function () { return 0; }, Read: function (s, e) { return s + e.body.kwh; } }).outputState()`,
    );
    await waitFor('the partition state', () => server.homeport.projections!.state('meters', 'meter-1') === '5');
    expect(await client.getProjectionState('meters', { partition: 'meter-1' })).toBe(5);
    expect(await client.getProjectionResult('meters', { partition: 'meter-1' })).toBe(5);
    expect(await client.getProjectionState('meters')).toEqual({});

    const status = await client.getProjectionStatus('meters');
    expect(status).toMatchObject({ name: 'meters', projectionStatus: 'Running' });
    const listed = (await client.listProjections()).map((p) => p.name);
    expect(listed).toEqual(expect.arrayContaining(['meters', '$by_category', '$by_event_type']));

    await client.disableProjection('meters');
    expect((await client.getProjectionStatus('meters')).projectionStatus).toBe('Stopped');
    await client.enableProjection('meters');
    expect((await client.getProjectionStatus('meters')).projectionStatus).toBe('Running');
    await client.resetProjection('meters');
    await client.abortProjection('meters');
    expect((await client.getProjectionStatus('meters')).projectionStatus).toBe('Aborted');
    await client.deleteProjection('meters', { deleteCheckpointStream: true });
    await expect(client.getProjectionStatus('meters')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.getProjectionState('nothing-here')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('RestartSubsystem stops every projection and starts the enabled ones again from their checkpoints', async () => {
    const { client, server } = shared;
    const manager = server.homeport.projections!;
    const tick = () => jsonEvent({ type: 'Tick', data: {} });
    await client.appendToStream('ticks-1', [tick(), tick(), tick()]);
    const count = `fromStream('ticks-1').when({ $init: function () { return { n: 0 }; }, Tick: function (s) { s.n++; } })`;
    await client.createProjection('ticks', count);
    await client.createProjection('ticks-off', count);
    await client.disableProjection('ticks-off');
    // The state is visible before its batch is checkpointed, and the counter moves after the checkpoint: wait for both.
    const counted = (n: number) => manager.get('ticks').progress.eventsProcessedAfterRestart === n;
    await waitFor('3 ticks counted', () => manager.state('ticks') === '{"n":3}' && counted(3));
    const runnerBefore = manager.get('ticks').progress;

    await client.restartSubsystem();
    // A new run of the projection: resumed from its checkpoint, nothing processed yet.
    const restarted = await client.getProjectionStatus('ticks');
    expect(restarted.projectionStatus).toBe('Running');
    expect(manager.get('ticks').progress).not.toBe(runnerBefore);
    expect(manager.get('ticks').progress.eventsProcessedAfterRestart).toBe(0);
    expect((await client.getProjectionStatus('ticks-off')).projectionStatus).toBe('Stopped');
    // The standard projections came back too.
    expect((await client.getProjectionStatus('$by_category')).projectionStatus).toBe('Running');

    await client.appendToStream('ticks-1', [tick()]);
    // Counted from the restart: 1, not 4.
    await waitFor('the fourth tick', () => manager.state('ticks') === '{"n":4}' && counted(1));
    expect((await client.getProjectionStatus('ticks-off')).projectionStatus).toBe('Stopped');

    await server.homeport.eventLog.users.add({ name: 'viewer', password: 'viewer-pass', groups: [] });
    const viewer = server.client({ username: 'viewer', password: 'viewer-pass' });
    await expect(viewer.restartSubsystem()).rejects.toBeInstanceOf(AccessDeniedError);
  });
});

import { describe, expect, it } from 'vitest';
import { ExpectedVersion } from '../../store/types.ts';
import { append, jsonEvent, parsedState, useProjectionsFixture, waitFor } from '../testing/fixture.ts';

/**
 * `$deleted` handlers (foreachStream: a deleted stream's partition is told, as EventStoreDB's
 * when_handling_deleted tests expect), `reorderEvents` and the definition checks EventStoreDB faults on.
 */

const ADMIN = { name: 'admin', groups: ['$admins'] };
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('JavaScript projections: $deleted, reorderEvents, definition checks', () => {
  const files = useProjectionsFixture();
  const manager = () => files.manager;
  const stateOf = (name: string, partition = '') => parsedState(files.manager, name, partition);
  const results = (streamId: string) =>
    files.fx.eventLog.store
      .readStreamForward(streamId, 0, 4096, false, ADMIN)
      .events.map((e) => `${e.event!.eventType}:${text(e.event!.data)}`);
  const remove = async (streamId: string, hard: boolean) => {
    const r = await files.fx.eventLog.store.deleteStream(streamId, ExpectedVersion.Any, hard, ADMIN);
    if (r.result !== 'Success') throw new Error(`delete ${streamId}: ${r.result}`);
  };
  const add = (streamId: string, ...types: string[]) =>
    append(
      files.fx.eventLog,
      streamId,
      types.map((t) => jsonEvent(t, {})),
    );

  it('fromCategory().foreachStream(): a hard-deleted stream calls $deleted with its partition', async () => {
    await add('shelf-1', 'type1', 'type2');
    await add('shelf-2', 'type1', 'type2');
    await manager().create({
      name: 'shelves',
      mode: 'Continuous',
      query: `fromCategory('shelf').foreachStream().when({
        $init: function () { return { a: 0 }; },
        type1: function (s, e) { s.a++; },
        type2: function (s, e) { s.a++; },
        $deleted: function (s, e, partition, isSoftDelete) { s.deleted = 1; s.partition = partition; s.soft = isSoftDelete; s.e = e; },
      }).outputState()`,
    });
    await waitFor('both shelves counted', () => stateOf('shelves', 'shelf-2')?.a === 2);
    await remove('shelf-1', true);
    await waitFor('shelf-1 told of its deletion', () => stateOf('shelves', 'shelf-1')?.deleted === 1);
    expect(stateOf('shelves', 'shelf-1')).toEqual({ a: 2, deleted: 1, partition: 'shelf-1', soft: false, e: null });
    expect(stateOf('shelves', 'shelf-2')).toEqual({ a: 2 });
    expect(results('$projections-shelves-shelf-1-result').at(-1)).toBe(
      'Result:{"a":2,"deleted":1,"partition":"shelf-1","soft":false,"e":null}',
    );
    expect(manager().get('shelves').progress.status).toBe('Running');
  });

  it('fromAll().foreachStream(): tombstones and soft deletes call $deleted, not $any', async () => {
    await add('bin-1', 'type1');
    await add('bin-2', 'type1', 'type2');
    await add('bin-1', 'type2');
    await remove('bin-1', true);
    await manager().create({
      name: 'bins',
      mode: 'Continuous',
      query: `fromAll().foreachStream().when({
        $init: function () { return { a: 0 }; },
        $any: function (s, e) { s.a++; },
        $deleted: function (s) { s.deleted = 1; },
      }).outputState()`,
    });
    await waitFor('bin-1 told of its deletion', () => stateOf('bins', 'bin-1')?.deleted === 1);
    expect(stateOf('bins', 'bin-1')).toEqual({ a: 2, deleted: 1 });
    expect(results('$projections-bins-bin-1-result').at(-1)).toBe('Result:{"a":2,"deleted":1}');
    await add('bin-3', 'type1');
    await remove('bin-3', false);
    await waitFor('bin-3 told of its (soft) deletion', () => stateOf('bins', 'bin-3')?.deleted === 1);
    expect(stateOf('bins', 'bin-3')).toEqual({ a: 1, deleted: 1 });
    expect(stateOf('bins', 'bin-2')).toEqual({ a: 2 });
  });

  it('reorderEvents on fromStreams: accepted, events handled in log order', async () => {
    await append(files.fx.eventLog, 'left-1', [jsonEvent('Step', { n: 1 })]);
    await append(files.fx.eventLog, 'right-1', [jsonEvent('Step', { n: 2 })]);
    await append(files.fx.eventLog, 'left-1', [jsonEvent('Step', { n: 3 })]);
    await append(files.fx.eventLog, 'right-1', [jsonEvent('Step', { n: 4 }), jsonEvent('Step', { n: 5 })]);
    await manager().create({
      name: 'ordered',
      mode: 'Continuous',
      query: `options({ reorderEvents: true, processingLag: 100 });
        fromStreams(['left-1', 'right-1']).when({
          $init: function () { return { seen: [] }; },
          Step: function (s, e) { s.seen.push(e.body.n); },
        })`,
    });
    await waitFor('five steps', () => stateOf('ordered')?.seen.length === 5);
    expect(stateOf('ordered')).toEqual({ seen: [1, 2, 3, 4, 5] });
    expect(manager().get('ordered').progress.status).toBe('Running');
  });

  const faults: [string, string, string][] = [
    [
      'deleted-unpartitioned',
      `fromCategory('x').when({ $deleted: function (s) {} })`,
      'Deleted stream notifications are only supported with foreachStream()',
    ],
    [
      'deleted-bistate',
      `fromCategory('x').foreachStream().when({ $initShared: function () { return {}; }, $deleted: function (s) {} })`,
      'Cannot handle deletes in bi-state projections',
    ],
    [
      'reorder-one-stream',
      `options({ reorderEvents: true, processingLag: 100 }); fromStream('a').when({})`,
      'Event reordering is only available in fromStreams([]) projections',
    ],
    [
      'reorder-no-lag',
      `options({ reorderEvents: true }); fromStreams('a', 'b').when({})`,
      'Event reordering requires processing lag at least of 50ms',
    ],
    [
      'reorder-all',
      `options({ reorderEvents: true, processingLag: 100 }); fromAll().when({})`,
      'Event reordering cannot be used with fromAll()',
    ],
    [
      'streams-and-categories',
      `fromStream('a'); fromCategory('b').when({})`,
      'Streams and categories cannot be included in a filter at the same time',
    ],
  ];
  it.each(faults)('%s is created, then Faulted with the reason', async (name, query, reason) => {
    await manager().create({ name, mode: 'Continuous', query });
    await waitFor(`${name} faulted`, () => manager().get(name).progress.status === 'Faulted');
    expect(manager().get(name).progress.stateReason).toContain(reason);
  });
});

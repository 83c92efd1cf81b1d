import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { comparePositions } from './positions.ts';
import { ADMIN, event, events, openTestStore, type TestStore } from './testing/store.ts';
import { EVENT_NUMBER_INVALID, ExpectedVersion, type EventFilter, type Position, type ResolvedEvent } from './types.ts';

const { Any, NoStream } = ExpectedVersion;
const START: Position = { commitPosition: 0, preparePosition: 0 };
const END: Position = { commitPosition: -1, preparePosition: -1 };

let t: TestStore;
beforeEach(() => {
  t = openTestStore();
});
afterEach(async () => {
  await t.close();
});

const pos = (e: ResolvedEvent): Position => ({ commitPosition: e.commitPosition, preparePosition: e.preparePosition });
const label = (e: ResolvedEvent) => `${e.event!.streamId}#${e.event!.eventNumber}`;

/** A log with plain writes, a transaction interleaved with appends, and a transaction at the very end. */
async function mixedLog(): Promise<void> {
  await t.store.appendToStream('a', NoStream, events(3), null);
  const tx = await t.store.startTransaction('b', NoStream, null);
  await t.store.transactionWrite(tx.transactionId, events(2), null);
  await t.store.appendToStream('c', Any, events(2), null);
  await t.store.transactionWrite(tx.transactionId, events(2), null);
  await t.store.commitTransaction(tx.transactionId, null);
  await t.store.appendToStream('a', Any, events(1), null);
  const last = await t.store.startTransaction('d', Any, null);
  await t.store.transactionWrite(last.transactionId, events(3), null);
  await t.store.commitTransaction(last.transactionId, null);
}

/** Pages forward like a catch-up subscription until next >= (last, last). */
function catchUp(from: Position, pageSize: number): { events: ResolvedEvent[]; cursors: Position[] } {
  const last = t.store.lastCommitPosition();
  const out: ResolvedEvent[] = [];
  const cursors: Position[] = [];
  let cursor = from;
  for (let guard = 0; guard < 10_000; guard++) {
    const r = t.store.readAllForward(cursor, pageSize, false, ADMIN);
    expect(r.result).toBe('Success');
    out.push(...r.events);
    cursors.push(r.nextPosition);
    cursor = r.nextPosition;
    if (comparePositions(cursor, { commitPosition: last, preparePosition: last }) >= 0) return { events: out, cursors };
  }
  throw new Error('catch-up did not terminate');
}

describe('$all positions', () => {
  it('gives every event a unique, strictly increasing position; plain writes sit at (p, p)', async () => {
    await mixedLog();
    const all = t.store.readAllForward(START, 4096, false, ADMIN).events;
    expect(all).toHaveLength(13);
    for (let i = 1; i < all.length; i++) expect(comparePositions(pos(all[i - 1]), pos(all[i]))).toBeLessThan(0);
    const prepares = all.map((e) => e.preparePosition);
    expect(new Set(prepares).size).toBe(all.length);
    expect(Math.min(...prepares)).toBeGreaterThan(0);
    for (const e of all.filter((x) => x.event!.streamId === 'a' || x.event!.streamId === 'c'))
      expect(e.commitPosition).toBe(e.preparePosition);
    expect(t.store.lastCommitPosition()).toBe(Math.max(...all.map((e) => e.commitPosition)));
  });

  it('forward paging with any page size returns each event once and never hands out a real position as a cursor', async () => {
    await mixedLog();
    const expected = t.store.readAllForward(START, 4096, false, ADMIN).events.map(label);
    const real = new Set(
      t.store.readAllForward(START, 4096, false, ADMIN).events.map((e) => `${e.commitPosition}/${e.preparePosition}`),
    );
    for (const size of [1, 2, 3, 5, 100]) {
      const { events: got, cursors } = catchUp(START, size);
      expect(got.map(label)).toEqual(expected);
      for (const c of cursors) expect(real.has(`${c.commitPosition}/${c.preparePosition}`)).toBe(false);
    }
  });

  it('resumes exactly after a checkpointed event position (exclusive start, as catch-up clients do)', async () => {
    await mixedLog();
    const all = t.store.readAllForward(START, 4096, false, ADMIN).events;
    for (let i = 0; i < all.length; i++) {
      const r = t.store.readAllForward(pos(all[i]), 4096, false, ADMIN);
      // Clients drop events <= the checkpoint; what remains must be exactly the rest.
      const after = r.events.filter((e) => comparePositions(pos(e), pos(all[i])) > 0);
      expect(after.map(label)).toEqual(all.slice(i + 1).map(label));
    }
  });

  it('(-1,-1) is the head of the log: (last + 1, 0), with no events forward', async () => {
    await mixedLog();
    const last = t.store.lastCommitPosition();
    const r = t.store.readAllForward(END, 10, false, ADMIN);
    expect(r).toMatchObject({
      result: 'Success',
      events: [],
      position: { commitPosition: last + 1, preparePosition: 0 },
      nextPosition: { commitPosition: last + 1, preparePosition: 0 },
    });
    await t.store.appendToStream('late', Any, events(1), null);
    expect(t.store.readAllForward(r.nextPosition, 10, false, ADMIN).events.map(label)).toEqual(['late#0']);
  });

  it('pages backward from the end: newest first, next = the oldest returned event', async () => {
    await mixedLog();
    const forward = t.store.readAllForward(START, 4096, false, ADMIN).events.map(label);
    const got: string[] = [];
    let cursor = END;
    for (;;) {
      const r = t.store.readAllBackward(cursor, 2, false, ADMIN);
      if (r.events.length === 0) break;
      got.push(...r.events.map(label));
      expect(r.nextPosition).toEqual(pos(r.events[r.events.length - 1]));
      cursor = r.nextPosition;
    }
    expect(got).toEqual([...forward].reverse());
  });

  it('refuses negative positions other than (-1,-1)', () => {
    expect(t.store.readAllForward({ commitPosition: -1, preparePosition: 0 }, 10, false, ADMIN)).toMatchObject({
      result: 'Error',
      error: 'Invalid position.',
    });
    expect(t.store.readAllBackward({ commitPosition: 5, preparePosition: -3 }, 10, false, ADMIN).result).toBe('Error');
  });

  it('an empty log reads as empty', () => {
    expect(t.store.lastCommitPosition()).toBe(0);
    expect(t.store.readAllForward(START, 10, false, ADMIN)).toMatchObject({
      result: 'Success',
      events: [],
      nextPosition: { commitPosition: 1, preparePosition: 0 },
    });
    expect(t.store.readAllBackward(END, 10, false, ADMIN)).toMatchObject({ result: 'Success', events: [] });
  });
});

describe('explicit transactions', () => {
  it('assigns numbers and one shared commit position at commit; appends may interleave', async () => {
    await t.store.appendToStream('s', NoStream, events(1), null);
    const tx = await t.store.startTransaction('s', Any, null);
    expect(tx).toMatchObject({ result: 'Success' });
    expect(tx.transactionId).toBeGreaterThanOrEqual(0);
    expect(await t.store.transactionWrite(tx.transactionId, events(2), null)).toEqual({
      transactionId: tx.transactionId,
      result: 'Success',
    });
    await t.store.appendToStream('s', Any, events(1), null);
    await t.store.transactionWrite(tx.transactionId, [], null);
    await t.store.transactionWrite(tx.transactionId, events(1), null);
    // Not visible before the commit.
    expect(t.store.lastEventNumber('s')).toBe(1);
    const commit = await t.store.commitTransaction(tx.transactionId, null);
    expect(commit).toMatchObject({
      transactionId: tx.transactionId,
      result: 'Success',
      firstEventNumber: 2,
      lastEventNumber: 4,
    });
    const txEvents = t.store.readAllForward(START, 100, false, ADMIN).events.filter((e) => e.event!.eventNumber >= 2);
    expect(txEvents.map((e) => e.commitPosition)).toEqual([
      commit.commitPosition,
      commit.commitPosition,
      commit.commitPosition,
    ]);
    expect(txEvents[0].preparePosition).toBe(commit.preparePosition);
    for (const e of txEvents) expect(e.preparePosition).toBeLessThan(e.commitPosition);
    expect(new Set(txEvents.map((e) => e.preparePosition)).size).toBe(3);
    expect(t.store.readStreamForward('s', 0, 10, false, null).events.map((e) => e.event!.eventNumber)).toEqual([
      0, 1, 2, 3, 4,
    ]);
  });

  it('checks the expected version given at start, at commit time', async () => {
    const early = await t.store.startTransaction('s', 0, null);
    await t.store.transactionWrite(early.transactionId, events(1), null);
    const wrong = await t.store.startTransaction('s', 10, null);
    await t.store.transactionWrite(wrong.transactionId, events(1), null);
    await t.store.appendToStream('s', NoStream, events(1), null);
    expect(await t.store.commitTransaction(early.transactionId, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 1,
      lastEventNumber: 1,
    });
    expect(await t.store.commitTransaction(wrong.transactionId, null)).toMatchObject({
      result: 'WrongExpectedVersion',
      firstEventNumber: EVENT_NUMBER_INVALID,
      lastEventNumber: EVENT_NUMBER_INVALID,
    });
  });

  it('commits an empty transaction as a version check only', async () => {
    const tx = await t.store.startTransaction('s', NoStream, null);
    expect(await t.store.commitTransaction(tx.transactionId, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: -1,
    });
    expect(t.store.readStreamForward('s', 0, 10, false, null).result).toBe('NoStream');
  });

  it("answers InvalidTransaction for unknown or already committed ids, and repeats a commit's answer", async () => {
    expect(await t.store.transactionWrite(424242, events(1), null)).toMatchObject({ result: 'InvalidTransaction' });
    expect(await t.store.commitTransaction(424242, null)).toMatchObject({ result: 'InvalidTransaction' });
    const tx = await t.store.startTransaction('s', Any, null);
    await t.store.transactionWrite(tx.transactionId, events(2), null);
    const first = await t.store.commitTransaction(tx.transactionId, null);
    expect(await t.store.commitTransaction(tx.transactionId, null)).toEqual(first);
    expect(await t.store.transactionWrite(tx.transactionId, events(1), null)).toMatchObject({
      result: 'InvalidTransaction',
    });
    expect(t.store.lastEventNumber('s')).toBe(1);
  });

  it('fails with StreamDeleted when the stream was hard-deleted meanwhile', async () => {
    await t.store.deleteStream('gone', NoStream, true, null);
    const tx = await t.store.startTransaction('gone', Any, null);
    await t.store.transactionWrite(tx.transactionId, events(1), null);
    expect((await t.store.commitTransaction(tx.transactionId, null)).result).toBe('StreamDeleted');
  });

  it('is idempotent by event id like a plain append', async () => {
    const batch = events(2);
    await t.store.appendToStream('s', NoStream, batch, null);
    const tx = await t.store.startTransaction('s', NoStream, null);
    await t.store.transactionWrite(tx.transactionId, batch, null);
    expect(await t.store.commitTransaction(tx.transactionId, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 1,
    });
    expect(t.store.lastEventNumber('s')).toBe(1);
  });

  it('survives a restart (state is in the database)', async () => {
    const tx = await t.store.startTransaction('s', NoStream, null);
    const batch = [event('first', { a: 1 }), event('second', { b: 2 })];
    await t.store.transactionWrite(tx.transactionId, batch, null);
    await t.store.close();
    const store = t.reopen();
    expect(await store.transactionWrite(tx.transactionId, events(1), null)).toMatchObject({ result: 'Success' });
    expect(await store.commitTransaction(tx.transactionId, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 2,
    });
    const read = store.readStreamForward('s', 0, 10, false, null).events.map((e) => e.event!);
    expect(read.map((e) => e.eventType)).toEqual(['first', 'second', 'test-event']);
    expect(read[0].eventId).toBe(batch[0].eventId);
  });
});

describe('filtered $all reads', () => {
  async function typedLog(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      await t.store.appendToStream(
        i % 2 ? 'order-1' : 'customer-1',
        Any,
        [event(i % 3 === 0 ? 'Matched' : 'Other', { i })],
        null,
      );
    }
  }
  const byType: EventFilter = { context: 'EventType', type: 'Prefix', data: ['Match'] };

  it('returns up to max_count matches and a cursor after the last examined event', async () => {
    await typedLog();
    const r = t.store.filteredReadAllForward(START, 2, 100, byType, false, ADMIN);
    expect(r.events.map((e) => (e.event!.data ? JSON.parse(Buffer.from(e.event!.data).toString()).i : -1))).toEqual([
      0, 3,
    ]);
    expect(r.isEndOfStream).toBe(false);
    expect(r.nextPosition).toEqual({ commitPosition: r.events[1].commitPosition + 1, preparePosition: 0 });
  });

  it('examines at most max_search_window events, reporting the end of the log only when it got there', async () => {
    await typedLog();
    const first = t.store.filteredReadAllForward(START, 10, 2, byType, false, ADMIN);
    expect(first.events).toHaveLength(1);
    expect(first.isEndOfStream).toBe(false);
    const all = t.store.readAllForward(START, 100, false, ADMIN).events;
    expect(first.nextPosition).toEqual({ commitPosition: all[1].commitPosition + 1, preparePosition: 0 });
    const matches: number[] = [];
    let cursor = START;
    let pages = 0;
    for (;;) {
      const r = t.store.filteredReadAllForward(cursor, 10, 3, byType, false, ADMIN);
      pages++;
      matches.push(...r.events.map((e) => JSON.parse(Buffer.from(e.event!.data).toString()).i));
      cursor = r.nextPosition;
      if (r.isEndOfStream) break;
    }
    expect(matches).toEqual([0, 3, 6, 9]);
    expect(pages).toBe(4);
    // max_search_window <= 0 means max_count.
    expect(t.store.filteredReadAllForward(START, 3, 0, byType, false, ADMIN).events).toHaveLength(1);
  });

  it('filters backward, by stream prefixes (any entry) or a stream regex (first entry only)', async () => {
    await typedLog();
    const back = t.store.filteredReadAllBackward(END, 10, 100, byType, false, ADMIN);
    expect(back.events.map((e) => JSON.parse(Buffer.from(e.event!.data).toString()).i)).toEqual([9, 6, 3, 0]);
    expect(back.isEndOfStream).toBe(true);
    expect(back.nextPosition).toEqual(pos(t.store.readAllForward(START, 1, false, ADMIN).events[0]));
    const prefixes = t.store.filteredReadAllForward(
      START,
      100,
      100,
      { context: 'StreamId', type: 'Prefix', data: ['nothing', 'order-'] },
      false,
      ADMIN,
    );
    expect(new Set(prefixes.events.map((e) => e.event!.streamId))).toEqual(new Set(['order-1']));
    expect(prefixes.events).toHaveLength(5);
    const regex = t.store.filteredReadAllForward(
      START,
      100,
      100,
      { context: 'StreamId', type: 'Regex', data: ['^cust', '^order'] },
      false,
      ADMIN,
    );
    expect(regex.events.map((e) => e.event!.streamId)).toEqual(Array(5).fill('customer-1'));
    const noSystem = t.store.filteredReadAllForward(
      START,
      100,
      100,
      { context: 'EventType', type: 'Regex', data: ['^[^\\$]'] },
      false,
      ADMIN,
    );
    expect(noSystem.events).toHaveLength(10);
  });

  it('no filter means every event; a bad regex is an Error result', async () => {
    await typedLog();
    expect(t.store.filteredReadAllForward(START, 100, 100, null, false, ADMIN).events).toHaveLength(10);
    expect(
      t.store.filteredReadAllForward(
        START,
        100,
        100,
        { context: 'StreamId', type: 'Regex', data: ['('] },
        false,
        ADMIN,
      ),
    ).toMatchObject({ result: 'Error' });
  });

  it('runs a catastrophic regex over crafted stream names in linear time (regex DoS)', async () => {
    // Anyone who may write can name streams; with a backtracking engine `^(a+)+$` over these would never finish.
    for (let i = 0; i < 20; i++) await t.store.appendToStream(`${'a'.repeat(30 + i)}!`, Any, events(1), null);
    await t.store.appendToStream('aaaa', Any, events(1), null);
    const r = t.store.filteredReadAllForward(
      START,
      100,
      1000,
      { context: 'StreamId', type: 'Regex', data: ['^(a+)+$'] },
      false,
      ADMIN,
    );
    expect(r.events.map((e) => e.event!.streamId)).toEqual(['aaaa']);
  });

  it('is at the end when started at the head', async () => {
    await typedLog();
    const r = t.store.filteredReadAllForward(END, 10, 10, byType, false, ADMIN);
    expect(r).toMatchObject({ events: [], isEndOfStream: true });
  });
});

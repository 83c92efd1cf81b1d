import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EVENT_NUMBER_DELETED,
  type RecordedEvent,
  type ResolvedEvent,
  type ResolvedIndexedEvent,
} from '../store/types.ts';
import { uuidToBytes } from '../store/uuid.ts';
import { eventNumberToWire, resolvedEventToWire, resolvedIndexedEventToWire } from './codec.ts';
import {
  encodeReadAllEventsCompleted,
  encodeReadStreamEventsCompleted,
  encodeStreamEventAppeared,
  encodeWriteEventsCompleted,
  type WriteReply,
} from './event-encoder.ts';
import { encodeMessage } from './messages.ts';

function record(overrides: Partial<RecordedEvent> = {}, withBytes = true): RecordedEvent {
  const eventId = crypto.randomUUID();
  return {
    streamId: 'order-1',
    eventNumber: 7,
    eventId,
    ...(withBytes ? { eventIdBytes: uuidToBytes(eventId) } : {}),
    eventType: 'OrderPlaced',
    isJson: true,
    data: Buffer.from('{"total":12}'),
    metadata: Buffer.from('{"by":"test"}'),
    created: Date.UTC(2026, 10, 25, 7, 0, 0, 123),
    commitPosition: 1234,
    preparePosition: 1234,
    ...overrides,
  };
}

/** Records covering what differs in the encoding: sizes, signs, deletion, text, ids with and without bytes. */
function variety(): RecordedEvent[] {
  return [
    record(),
    record({}, false),
    record({ streamId: 'straße-🚢', eventType: 'Événement' }),
    record({ eventNumber: 0, data: new Uint8Array(0), metadata: new Uint8Array(0), isJson: false }),
    record({ eventNumber: EVENT_NUMBER_DELETED, eventType: '$streamDeleted' }),
    record({ eventNumber: 2 ** 40 + 5, created: 0 }),
    record({ data: crypto.randomBytes(70_000), created: Date.UTC(1999, 0, 1) }),
  ];
}

const wireStream = (events: ResolvedIndexedEvent[], extra: Record<string, unknown>) =>
  encodeMessage('ReadStreamEventsCompleted', { events: events.map(resolvedIndexedEventToWire), ...extra });

describe('event encoder (checked against protobufjs)', () => {
  it('ReadStreamEventsCompleted: events, links, negative and deleted numbers, an error', () => {
    const entries: ResolvedIndexedEvent[] = [
      ...variety().map((event) => ({ event })),
      { event: record(), link: record({ eventType: '$>' }) },
      { link: record() },
    ];
    for (const [next, last, error] of [
      [8, 7, undefined],
      [-1, -1, 'Read size too big'],
      [5, EVENT_NUMBER_DELETED, undefined],
    ] as const) {
      const reply = {
        events: entries,
        result: 0,
        nextEventNumber: next,
        lastEventNumber: last,
        isEndOfStream: next < 0,
        lastCommitPosition: 987_654_321_012,
        error,
      };
      const expected = wireStream(entries, {
        result: 0,
        nextEventNumber: eventNumberToWire(next),
        lastEventNumber: eventNumberToWire(last),
        isEndOfStream: next < 0,
        lastCommitPosition: 987_654_321_012,
        ...(error ? { error } : {}),
      });
      expect(Buffer.from(encodeReadStreamEventsCompleted(reply))).toEqual(Buffer.from(expected));
    }
    expect(
      Buffer.from(
        encodeReadStreamEventsCompleted({
          events: [],
          result: 1,
          nextEventNumber: -1,
          lastEventNumber: -1,
          isEndOfStream: true,
          lastCommitPosition: 0,
        }),
      ),
    ).toEqual(
      Buffer.from(
        wireStream([], {
          result: 1,
          nextEventNumber: -1,
          lastEventNumber: -1,
          isEndOfStream: true,
          lastCommitPosition: 0,
        }),
      ),
    );
  });

  it('ReadAllEventsCompleted and FilteredReadAllEventsCompleted', () => {
    const entries: ResolvedEvent[] = variety().map((event, i) => ({
      event,
      commitPosition: 1000 + i * 2,
      preparePosition: 999 + i * 2,
    }));
    entries.push({ event: record(), link: record({ eventType: '$>' }), commitPosition: 5, preparePosition: 5 });
    const base = {
      commitPosition: 17,
      preparePosition: 16,
      nextCommitPosition: -1,
      nextPreparePosition: -1,
      result: 0,
    };
    expect(Buffer.from(encodeReadAllEventsCompleted({ ...base, events: entries }))).toEqual(
      Buffer.from(encodeMessage('ReadAllEventsCompleted', { ...base, events: entries.map(resolvedEventToWire) })),
    );
    const failed = { ...base, result: 3, error: 'Access denied.' };
    expect(Buffer.from(encodeReadAllEventsCompleted({ ...failed, events: [] }))).toEqual(
      Buffer.from(encodeMessage('ReadAllEventsCompleted', { ...failed, events: [] })),
    );
    for (const isEndOfStream of [true, false]) {
      expect(Buffer.from(encodeReadAllEventsCompleted({ ...failed, events: entries, isEndOfStream }))).toEqual(
        Buffer.from(
          encodeMessage('FilteredReadAllEventsCompleted', {
            ...failed,
            events: entries.map(resolvedEventToWire),
            isEndOfStream,
          }),
        ),
      );
    }
  });

  it('StreamEventAppeared', () => {
    for (const event of variety()) {
      const entry: ResolvedEvent = { event, commitPosition: 2 ** 35, preparePosition: 2 ** 35 - 1 };
      expect(Buffer.from(encodeStreamEventAppeared(entry))).toEqual(
        Buffer.from(encodeMessage('StreamEventAppeared', { event: resolvedEventToWire(entry) })),
      );
    }
  });

  it('WriteEventsCompleted: success, failures with a message and a current version, deleted streams', () => {
    const replies: WriteReply[] = [
      { result: 0, firstEventNumber: 0, lastEventNumber: 0, preparePosition: 1, commitPosition: 1 },
      { result: 0, firstEventNumber: 5, lastEventNumber: 4, preparePosition: -1, commitPosition: -1 },
      {
        result: 0,
        firstEventNumber: 2 ** 40,
        lastEventNumber: 2 ** 40 + 99,
        preparePosition: 2 ** 52,
        commitPosition: 2 ** 52,
      },
      {
        result: 5,
        message: 'Wrong expected version.',
        firstEventNumber: -1,
        lastEventNumber: -1,
        preparePosition: -1,
        commitPosition: -1,
        currentVersion: 41,
      },
      {
        result: 6,
        message: 'Stream is deleted — größer',
        firstEventNumber: -1,
        lastEventNumber: -1,
        preparePosition: -1,
        commitPosition: -1,
        currentVersion: EVENT_NUMBER_DELETED,
      },
      {
        result: 7,
        message: 'Access denied.',
        firstEventNumber: -1,
        lastEventNumber: -1,
        preparePosition: -1,
        commitPosition: -1,
      },
    ];
    for (const reply of replies) {
      const viaProtobufjs = encodeMessage('WriteEventsCompleted', {
        ...reply,
        firstEventNumber: eventNumberToWire(reply.firstEventNumber),
        lastEventNumber: eventNumberToWire(reply.lastEventNumber),
        ...(reply.currentVersion === undefined ? {} : { currentVersion: eventNumberToWire(reply.currentVersion) }),
      });
      expect(Buffer.from(encodeWriteEventsCompleted(reply))).toEqual(Buffer.from(viaProtobufjs));
    }
  });
});

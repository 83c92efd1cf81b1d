import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { EVENT_NUMBER_DELETED, type RecordedEvent } from '../store/types.ts';
import {
  BadRequestError,
  dotNetBinaryDate,
  eventNumberToWire,
  eventRecordToWire,
  filterFromWire,
  int64ToNumber,
  newEventFromWire,
  resolvedEventToWire,
  unixMsFromDotNetBinary,
} from './codec.ts';
import { guidStringToBytes } from './guid.ts';
import { decodeMessage, encodeMessage, MissingRequiredFieldError } from './messages.ts';

// The strict client: protobufjs 6 static code generated from a proto2 file with `required` fields.
const require = createRequire(import.meta.url);
const strict = require('node-eventstore-client-0.2/src/messages/clientMessage.js');

const record: RecordedEvent = {
  streamId: 'orders-1',
  eventNumber: 0,
  eventId: '00112233-4455-6677-8899-aabbccddeeff',
  eventType: 'OrderPlaced',
  isJson: true,
  data: new Uint8Array(0),
  metadata: new Uint8Array(0),
  created: Date.UTC(2024, 0, 2, 3, 4, 5, 678),
  commitPosition: 0,
  preparePosition: 0,
};

describe('int64 mapping', () => {
  it('turns long.MaxValue into EVENT_NUMBER_DELETED and back', () => {
    const max = { low: -1, high: 0x7fffffff, unsigned: false };
    expect(int64ToNumber(max)).toBe(EVENT_NUMBER_DELETED);
    expect(eventNumberToWire(EVENT_NUMBER_DELETED)).toEqual(max);
    expect(eventNumberToWire(41)).toBe(41);
  });

  it('reads negative and large values', () => {
    expect(int64ToNumber({ low: -2, high: -1 })).toBe(-2);
    expect(int64ToNumber({ low: 0, high: 1 })).toBe(4294967296);
    expect(int64ToNumber({ low: 0, high: -0x80000000 })).toBe(-Number.MAX_SAFE_INTEGER);
    expect(int64ToNumber(-4)).toBe(-4);
  });
});

describe('.NET DateTime.ToBinary', () => {
  it('encodes UTC ticks with the Kind bit and decodes back', () => {
    const bits = dotNetBinaryDate(0) as { low: number; high: number };
    const value = (BigInt(bits.high) << 32n) | BigInt(bits.low >>> 0);
    expect(value).toBe(621_355_968_000_000_000n | (1n << 62n));
    expect(unixMsFromDotNetBinary(dotNetBinaryDate(record.created))).toBe(record.created);
  });
});

describe('events', () => {
  it('reads a NewEvent in .NET byte order and refuses bad ids', () => {
    const event = newEventFromWire({
      eventId: guidStringToBytes(record.eventId),
      eventType: 't',
      dataContentType: 1,
      metadataContentType: 0,
      data: Buffer.from('{}'),
    });
    expect(event).toMatchObject({ eventId: record.eventId, isJson: true });
    // The store's bytes of the id (canonical text order), taken as they are instead of parsing the text again.
    expect(event.eventIdBytes?.toString('hex')).toBe(record.eventId.replaceAll('-', ''));
    expect(() =>
      newEventFromWire({
        eventId: Buffer.alloc(3),
        eventType: 't',
        dataContentType: 0,
        metadataContentType: 0,
        data: Buffer.alloc(0),
      }),
    ).toThrow(BadRequestError);
  });

  it('gives an absent NewEvent.metadata as empty bytes', () => {
    const bytes = strict.WriteEvents.encode({
      eventStreamId: 's',
      expectedVersion: -2,
      requireMaster: true,
      events: [
        {
          eventId: guidStringToBytes(record.eventId),
          eventType: 't',
          dataContentType: 0,
          metadataContentType: 0,
          data: Buffer.from('x'),
        },
      ],
    }).finish();
    const decoded = decodeMessage<{ events: Parameters<typeof newEventFromWire>[0][] }>('WriteEvents', bytes);
    const event = newEventFromWire(decoded.events[0]);
    expect(event.metadata).toBeInstanceOf(Uint8Array);
    expect(event.metadata.length).toBe(0);
    expect(Buffer.from(event.data).toString()).toBe('x');
  });

  it('writes every required field of an all-zero EventRecord so the strict client accepts it', () => {
    const bytes = encodeMessage('EventRecord', eventRecordToWire(record));
    const decoded = strict.EventRecord.decode(bytes);
    expect(decoded.eventNumber.toNumber()).toBe(0);
    expect(decoded.dataContentType).toBe(1);
    expect(decoded.metadataContentType).toBe(1);
    expect(decoded.createdEpoch.toNumber()).toBe(record.created);
    expect(Buffer.from(decoded.eventId)).toEqual(guidStringToBytes(record.eventId));
  });

  it('encodes a resolved $all entry with zero positions and a deleted-stream number', () => {
    const tombstone = { ...record, eventNumber: EVENT_NUMBER_DELETED, eventType: '$streamDeleted' };
    const bytes = encodeMessage(
      'ResolvedEvent',
      resolvedEventToWire({ event: tombstone, commitPosition: 0, preparePosition: 0 }),
    );
    const decoded = strict.ResolvedEvent.decode(bytes);
    expect(decoded.event.eventNumber.toString()).toBe('9223372036854775807');
    expect(decoded.commitPosition.toNumber()).toBe(0);
  });
});

describe('encodeMessage', () => {
  it('refuses a reply with a missing required field, also in nested messages', () => {
    expect(() => encodeMessage('WriteEventsCompleted', { result: 0, firstEventNumber: 0 })).toThrow(
      MissingRequiredFieldError,
    );
    expect(() => encodeMessage('ReadEventCompleted', { result: 0 })).toThrow(/event/);
    const incomplete = { ...eventRecordToWire(record), eventType: undefined };
    expect(() =>
      encodeMessage('ReadStreamEventsCompleted', {
        events: [{ event: incomplete }],
        result: 0,
        nextEventNumber: 0,
        lastEventNumber: 0,
        isEndOfStream: true,
        lastCommitPosition: 0,
      }),
    ).toThrow(/events\[0\]\.event/);
  });

  it('sends ReadEventCompleted.event as an empty message the strict client accepts', () => {
    const decoded = strict.ReadEventCompleted.decode(encodeMessage('ReadEventCompleted', { result: 2, event: {} }));
    expect(decoded.result).toBe(2);
  });

  it('decodes requests strictly', () => {
    const bytes = strict.WriteEvents.encode({
      eventStreamId: 's',
      expectedVersion: -2,
      events: [],
      requireMaster: true,
    }).finish();
    expect(decodeMessage<{ eventStreamId: string }>('WriteEvents', bytes).eventStreamId).toBe('s');
    expect(() => decodeMessage('WriteEvents', Buffer.from([0x0a, 0x01, 0x73]))).toThrow(/required/);
    expect(() => decodeMessage('WriteEvents', Buffer.from([0xff, 0xff, 0xff]))).toThrow();
  });
});

describe('filters', () => {
  it('maps wire filters and treats an empty one as none', () => {
    expect(filterFromWire({ context: 1, type: 1, data: ['Order'] })).toEqual({
      context: 'EventType',
      type: 'Prefix',
      data: ['Order'],
    });
    expect(filterFromWire({ context: 0, type: 0, data: [] })).toBeNull();
    expect(() => filterFromWire({ context: 7, type: 0, data: ['x'] })).toThrow(BadRequestError);
  });
});

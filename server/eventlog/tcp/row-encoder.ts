/**
 * ReadAllEventsCompleted and ReadStreamEventsCompleted written straight from a page's SQLite rows when no link is
 * resolved (ReadAllRowsResult, ReadStreamRowsResult): no record, entry, id text or data and metadata Buffers per
 * event, as event-encoder.ts needs. The bytes are those encodeReadAllEventsCompleted / encodeReadStreamEventsCompleted
 * make of the same page's entries (row-encoder.test.ts checks them against protobufjs).
 */
import { Column, EventFlags, type AllEventColumns, type EventColumns } from '../store/index.ts';
import { dotNetBinaryDate } from './codec.ts';
import { encodeAllReply, encodeStreamReply, type ReadAllReply, type ReadStreamReply } from './event-encoder.ts';
import {
  CONTENT_TYPE_JSON,
  int64FieldSize,
  int64Words,
  lengthDelimitedSize,
  utf8Length,
  varint64Size,
  type Out,
} from './protobuf-out.ts';

/** ReadAllEventsCompleted of a page given as SQLite's rows (ReadAllRowsResult): the same bytes as its entries'. */
export function encodeReadAllRowsCompleted(
  reply: Omit<ReadAllReply, 'events' | 'isEndOfStream'> & { rows: readonly AllEventColumns[] },
): Uint8Array {
  const { rows } = reply;
  const recordSizes = rows.map((row) => rowRecordSize(row, row[Column.streamId]));
  return encodeAllReply(
    reply,
    rows.map(
      (row, i) =>
        lengthDelimitedSize(recordSizes[i]) +
        int64FieldSize(row[Column.commitPosition]) +
        int64FieldSize(row[Column.position]),
    ),
    (out, i, size, at) => {
      // writeResolvedEvent: the record (no link), then the two positions.
      const row = rows[i];
      out.varint32(size);
      writeRowRecord(out, row, row[Column.streamId], recordSizes[i]);
      out.int64(0x18, row[Column.commitPosition]);
      out.int64(0x20, row[Column.position]);
      return at;
    },
  );
}

/** ReadStreamEventsCompleted of a page of `streamId` given as SQLite's rows (ReadStreamRowsResult). */
export function encodeReadStreamRowsCompleted(
  reply: Omit<ReadStreamReply, 'events'> & { streamId: string; rows: readonly EventColumns[] },
): Uint8Array {
  const { rows, streamId } = reply;
  const recordSizes = rows.map((row) => rowRecordSize(row, streamId));
  return encodeStreamReply(reply, recordSizes.map(lengthDelimitedSize), (out, i, at) => {
    writeRowRecord(out, rows[i], streamId, recordSizes[i]);
    return at;
  });
}

/** Bytes of an event id at the head of a row's blob. */
const ROW_ID_BYTES = 16;

/** recordSize of the record a row stands for. */
function rowRecordSize(row: EventColumns | AllEventColumns, streamId: string): number {
  const created = row[Column.created];
  const blobLength = row[Column.idDataAndMetadata].byteLength;
  const dataLength = row[Column.dataLength];
  return (
    lengthDelimitedSize(utf8Length(streamId, 0)) +
    int64FieldSize(row[Column.eventNumber]) +
    lengthDelimitedSize(16) +
    lengthDelimitedSize(utf8Length(row[Column.eventType], 1)) +
    4 +
    lengthDelimitedSize(dataLength) +
    lengthDelimitedSize(blobLength - ROW_ID_BYTES - dataLength) +
    1 +
    varint64Size(int64Words(dotNetBinaryDate(created))) +
    int64FieldSize(created)
  );
}

/** writeRecord (tag 1, the event) of a row: data and metadata copied from the row's blob, the id from its head. */
function writeRowRecord(out: Out, row: EventColumns | AllEventColumns, streamId: string, recordSize: number): void {
  const blob = row[Column.idDataAndMetadata];
  const dataEnd = ROW_ID_BYTES + row[Column.dataLength];
  const contentType = (row[Column.flags] & EventFlags.IsJson) !== 0 ? CONTENT_TYPE_JSON : 0;
  const eventType = row[Column.eventType];
  out.byte(0x0a);
  out.varint32(recordSize);
  out.string(0x0a, streamId, utf8Length(streamId, 0));
  out.int64(0x10, row[Column.eventNumber]);
  out.guid(0x1a, blob);
  out.string(0x22, eventType, utf8Length(eventType, 1));
  out.byte(0x28);
  out.byte(contentType);
  out.byte(0x30);
  out.byte(contentType);
  out.bytesOf(0x3a, blob, ROW_ID_BYTES, dataEnd);
  out.bytesOf(0x42, blob, dataEnd, blob.byteLength);
  out.byte(0x48);
  out.varint64(int64Words(dotNetBinaryDate(row[Column.created])));
  out.int64(0x50, row[Column.created]);
}

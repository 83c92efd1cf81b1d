import crypto from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { binaryEvent, MaxAppendSizeExceededError } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer } from './testing/homeport.ts';
import { channelCredentials, rawClient, streamCall } from './testing/raw.ts';

/** The wire as other clients (.NET: structured UUIDs) and broken ones send it. */
const shared = useGrpcTestServer();
const STREAMS = 'event_store.client.streams.Streams';
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const STRUCTURED = {
  most_significant_bits: BigInt.asIntN(64, 0x0f8fad5bd9cb469fn).toString(),
  least_significant_bits: BigInt.asIntN(64, 0xa16570867728950en).toString(),
};

function append(client: grpc.Client, messages: unknown[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const call = (client as unknown as { Append: Function }).Append(
      (err: Error | null, res: Record<string, unknown>) => (err ? reject(err) : resolve(res)),
    );
    for (const m of messages) call.write(m);
    call.end();
  });
}

const streamOptions = (stream: string) => ({ stream_identifier: { stream_name: Buffer.from(stream) } });
const readOptions = (stream: string, uuid: 'structured' | 'string') => ({
  options: {
    stream: { ...streamOptions(stream), start: {} },
    read_direction: 'FORWARDS',
    count: '10',
    no_filter: {},
    uuid_option: { [uuid]: {} },
  },
});

/** Sends raw bytes as the request of a unary method, as a broken client would. */
function rawBytesCall(path: string, bytes: Buffer): Promise<never> {
  const identity = (b: Buffer) => b;
  const Ctor = grpc.makeGenericClientConstructor(
    {
      Call: {
        path,
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    'Raw',
  );
  const client = new Ctor(`127.0.0.1:${shared.server.port}`, channelCredentials(shared.server));
  return new Promise((_resolve, reject) =>
    (client as unknown as { Call: Function }).Call(bytes, (err: Error) => {
      client.close();
      reject(err);
    }),
  );
}

describe('UUIDs', () => {
  it('accepts structured ids and answers in the form each read asks for', async () => {
    const client = rawClient(shared.server, STREAMS);
    const result = await append(client, [
      { options: { ...streamOptions('uuid-forms'), no_stream: {} } },
      {
        proposed_message: {
          id: { structured: STRUCTURED },
          metadata: { type: 'made', 'content-type': 'application/json' },
          data: Buffer.from('{}'),
        },
      },
    ]);
    expect(result.result).toBe('success');
    const [structured] = await streamCall<{ event: { event: { id: { structured: typeof STRUCTURED } } } }>(
      client,
      'Read',
      readOptions('uuid-forms', 'structured'),
    );
    expect(structured.event.event.id.structured).toEqual(STRUCTURED);
    const [text] = await streamCall<{ event: { event: { id: { string: string } } } }>(
      client,
      'Read',
      readOptions('uuid-forms', 'string'),
    );
    expect(text.event.event.id.string).toBe(ID);
    client.close();
  });
});

describe('bad input', () => {
  it('answers a read without uuid_option, a filtered stream read and a backwards subscription with INVALID_ARGUMENT', async () => {
    const client = rawClient(shared.server, STREAMS);
    const base = readOptions('any', 'string').options;
    const { uuid_option: _, ...noUuid } = base;
    for (const options of [
      noUuid,
      { ...base, no_filter: undefined, filter: { stream_identifier: { prefix: ['a'] }, count: {} } },
      { ...base, count: undefined, subscription: {}, read_direction: 'BACKWARDS' },
      { ...base, read_direction: 7 },
      {},
    ]) {
      await expect(streamCall(client, 'Read', { options })).rejects.toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
      });
    }
    client.close();
  });

  it('refuses events without type or content-type with missing-required-metadata-property', async () => {
    const client = rawClient(shared.server, STREAMS);
    const err = await append(client, [
      { options: { ...streamOptions('no-type'), any: {} } },
      {
        proposed_message: {
          id: { string: ID },
          metadata: { 'content-type': 'application/json' },
          data: Buffer.from('{}'),
        },
      },
    ]).catch((e: grpc.ServiceError) => e);
    expect(err).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect((err as grpc.ServiceError).metadata.get('exception')).toEqual(['missing-required-metadata-property']);
    const badId = await append(client, [
      { options: { ...streamOptions('bad-id'), any: {} } },
      { proposed_message: { id: { string: 'not-a-uuid' }, metadata: { type: 't', 'content-type': 'x' } } },
    ]).catch((e: grpc.ServiceError) => e);
    expect(badId).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    client.close();
  });

  it('answers bytes that are no protobuf message, and unknown fields and oneof cases, with INVALID_ARGUMENT', async () => {
    // field 1, length-delimited, with a length running past the end
    await expect(
      rawBytesCall('/event_store.client.streams.Streams/Delete', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f])),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    // DeleteReq.options holding only an unknown field 99: decodes, but names no stream
    await expect(
      rawBytesCall('/event_store.client.streams.Streams/Delete', Buffer.from([0x0a, 0x03, 0x98, 0x06, 0x01])),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    // a stream, and an expected-revision oneof case (field 9) this protocol does not have
    const unknownCase = Buffer.from([0x0a, 0x07, 0x0a, 0x03, 0x1a, 0x01, 0x73, 0x4a, 0x00]);
    const err = await rawBytesCall('/event_store.client.streams.Streams/Delete', unknownCase).catch((e) => e);
    expect(err).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect(err.details).toMatch(/expected_stream_revision/);
  });

  it('refuses a message past the receive limit and an append past the size limit, and keeps serving', async () => {
    const client = rawClient(shared.server, STREAMS, undefined, { 'grpc.max_send_message_length': 64 * 1024 * 1024 });
    const huge = await append(client, [
      { options: { ...streamOptions('huge'), any: {} } },
      {
        proposed_message: {
          id: { string: ID },
          metadata: { type: 't', 'content-type': 'application/octet-stream' },
          data: Buffer.alloc(17 * 1024 * 1024),
        },
      },
    ]).catch((e: grpc.ServiceError) => e);
    expect(huge).toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    client.close();

    const big = () => binaryEvent({ type: 'big', data: Buffer.alloc(9 * 1024 * 1024) });
    await expect(shared.client.appendToStream('too-big', [big(), big()])).rejects.toBeInstanceOf(
      MaxAppendSizeExceededError,
    );
    const ok = await shared.client.appendToStream('after-big', [binaryEvent({ type: 'small', data: Buffer.alloc(8) })]);
    expect(ok.nextExpectedRevision).toBe(0n);
  });
});

describe('BatchAppend', () => {
  type Resp = {
    correlation_id: { string: string };
    stream_identifier: { stream_name: Buffer };
    result: 'success' | 'error';
    success?: { current_revision?: string };
    error?: { code: string; details: { type_url: string } };
  };
  const event = () => ({
    id: { string: crypto.randomUUID() },
    metadata: { type: 't', 'content-type': 'application/json' },
    data: Buffer.from('{}'),
  });

  it('answers every correlation id once, chunked and interleaved, with typed errors', async () => {
    const client = rawClient(shared.server, STREAMS);
    const call = (client as unknown as { BatchAppend(): grpc.ClientDuplexStream<unknown, Resp> }).BatchAppend();
    const answers = new Map<string, Resp>();
    const all = new Promise<void>((resolve, reject) => {
      call.on('data', (r: Resp) => {
        answers.set(r.correlation_id.string, r);
        if (answers.size === 4) resolve();
      });
      call.on('error', reject);
    });
    const [a, b, c, d] = Array.from({ length: 4 }, () => ({ string: crypto.randomUUID() }));
    const opts = (stream: string, expected: Record<string, unknown>) => ({
      stream_identifier: { stream_name: Buffer.from(stream) },
      ...expected,
    });
    call.write({ correlation_id: a, options: opts('batch-a', { no_stream: {} }), proposed_messages: [event()] });
    call.write({
      correlation_id: b,
      options: opts('batch-b', { any: {} }),
      proposed_messages: [event()],
      is_final: true,
    });
    call.write({ correlation_id: a, proposed_messages: [event()], is_final: true });
    call.write({
      correlation_id: c,
      options: opts('batch-b', { stream_position: '99' }),
      proposed_messages: [event()],
      is_final: true,
    });
    call.write({
      correlation_id: d,
      options: { ...opts('batch-d', { any: {} }), deadline_21_10_0: { seconds: '1', nanos: 0 } },
      proposed_messages: [event()],
      is_final: true,
    });
    await all;
    call.end();
    expect(answers.get(a.string)).toMatchObject({ result: 'success', success: { current_revision: '1' } });
    expect(answers.get(a.string)!.stream_identifier.stream_name.toString()).toBe('batch-a');
    expect(answers.get(b.string)).toMatchObject({ result: 'success', success: { current_revision: '0' } });
    expect(answers.get(c.string)).toMatchObject({ result: 'error', error: { code: 'ALREADY_EXISTS' } });
    expect(answers.get(c.string)!.error!.details.type_url).toBe(
      'type.googleapis.com/event_store.client.WrongExpectedVersion',
    );
    expect(answers.get(d.string)).toMatchObject({ result: 'error', error: { code: 'DEADLINE_EXCEEDED' } });
    client.close();
  });
});

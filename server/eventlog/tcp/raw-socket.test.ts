import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int64ToNumber } from './codec.ts';
import { TcpCommand, TcpFlags } from './commands.ts';
import { decodeMessage, encodeMessage, type Int64 } from './messages.ts';
import { encodeFrame } from './package.ts';
import { newId, RawClient, startTcpFixture, type TcpFixture } from './testing/raw-client.ts';
import { ADMIN, stream, type WriteEventsCompleted, writeEventsBody } from './testing/raw-requests.ts';

/** Framing, handshake and bad-input behaviour, spoken over plain sockets. */

describe('event-log TCP over raw sockets', () => {
  let fx: TcpFixture;
  let client: RawClient;

  beforeAll(async () => {
    fx = await startTcpFixture();
    client = await RawClient.connect(fx.port, { answerHeartbeats: true });
  });

  afterAll(async () => {
    client?.destroy();
    await fx?.close();
  });

  it('identifies the client, answers Ping with the same bytes and heartbeats with the same id', async () => {
    const identified = await client.request(
      TcpCommand.IdentifyClient,
      encodeMessage('IdentifyClient', { version: 1, connectionName: 'raw-test' }),
    );
    expect(identified.command).toBe(TcpCommand.ClientIdentified);
    expect(identified.body.length).toBe(0);
    expect(fx.server.connections.list().some((c) => c.connectionName === 'raw-test')).toBe(true);

    const pong = await client.request(TcpCommand.Ping, Buffer.from('echo me'));
    expect(pong.command).toBe(TcpCommand.Pong);
    expect(pong.body.toString()).toBe('echo me');

    const beat = await client.request(TcpCommand.HeartbeatRequestCommand);
    expect(beat.command).toBe(TcpCommand.HeartbeatResponseCommand);
  });

  it('reassembles a request sent one byte at a time', async () => {
    const id = newId();
    const frame = encodeFrame(
      TcpCommand.WriteEvents,
      id,
      writeEventsBody(stream('split'), [{ type: 'A', data: '{"split":true}' }]),
    );
    const reply = client.reply(id);
    for (const byte of frame) {
      client.write(Buffer.of(byte));
      await new Promise((r) => setImmediate(r));
    }
    const done = decodeMessage<WriteEventsCompleted>('WriteEventsCompleted', (await reply).body);
    expect(done.result).toBe(0);
    expect(int64ToNumber(done.lastEventNumber)).toBe(0);
  });

  it('answers two requests that arrive in one chunk, in order', async () => {
    const s = stream('coalesced');
    const first = newId();
    const second = newId();
    const replies = [client.reply(first), client.reply(second)];
    client.write(
      Buffer.concat([
        encodeFrame(TcpCommand.WriteEvents, first, writeEventsBody(s, [{ type: 'A', data: '1' }], -1)),
        encodeFrame(TcpCommand.WriteEvents, second, writeEventsBody(s, [{ type: 'A', data: '2' }], 0)),
      ]),
    );
    const [a, b] = await Promise.all(replies);
    expect(decodeMessage<WriteEventsCompleted>('WriteEventsCompleted', a.body).result).toBe(0);
    const secondResult = decodeMessage<WriteEventsCompleted>('WriteEventsCompleted', b.body);
    expect(secondResult.result).toBe(0);
    expect(int64ToNumber(secondResult.lastEventNumber)).toBe(1);
  });

  it('answers an unknown command and an undecodable body with BadRequest for that id, and keeps going', async () => {
    const unknown = await client.request(0x42, Buffer.from('whatever'));
    expect(unknown.command).toBe(TcpCommand.BadRequest);
    expect(unknown.body.toString()).toMatch(/0x42/);

    const garbage = await client.request(TcpCommand.WriteEvents, Buffer.from([0xff, 0xff, 0xff, 0xff]));
    expect(garbage.command).toBe(TcpCommand.BadRequest);

    const missingRequired = await client.request(TcpCommand.ReadEvent, encodeMessage('IdentifyClient', { version: 1 }));
    expect(missingRequired.command).toBe(TcpCommand.BadRequest);
    expect(missingRequired.body.toString()).toMatch(/required/);

    const shortId = encodeMessage('WriteEvents', {
      eventStreamId: 's',
      expectedVersion: -2,
      requireLeader: true,
      events: [
        { eventId: Buffer.alloc(4), eventType: 'A', dataContentType: 0, metadataContentType: 0, data: Buffer.alloc(0) },
      ],
    });
    expect((await client.request(TcpCommand.WriteEvents, shortId)).command).toBe(TcpCommand.BadRequest);
    expect(
      (await client.request(TcpCommand.WriteEvents, writeEventsBody('', [{ type: 'A', data: '{}' }]))).command,
    ).toBe(TcpCommand.BadRequest);

    expect((await client.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
    expect(client.isClosed).toBe(false);
  });

  it('refuses writes to $all and reads over the page limit with proper results', async () => {
    const denied = await client.request(TcpCommand.WriteEvents, writeEventsBody('$all', [{ type: 'A', data: '{}' }]));
    expect(decodeMessage<WriteEventsCompleted>('WriteEventsCompleted', denied.body).result).toBe(7);

    const tooMany = await client.request(
      TcpCommand.ReadStreamEventsForward,
      encodeMessage('ReadStreamEvents', {
        eventStreamId: 'any',
        fromEventNumber: 0,
        maxCount: 4097,
        resolveLinkTos: false,
        requireLeader: false,
      }),
    );
    const read = decodeMessage<{ result: number; error: string }>('ReadStreamEventsCompleted', tooMany.body);
    expect(read.result).toBe(4);
    expect(read.error).toMatch(/4096/);
  });

  it('handles Authenticate with no, bad and good credentials', async () => {
    const c = await RawClient.connect(fx.port, { answerHeartbeats: true });
    try {
      const none = await c.request(TcpCommand.Authenticate);
      expect(none.command).toBe(TcpCommand.NotAuthenticated);
      const bad = await c.request(TcpCommand.Authenticate, null, { login: 'admin', password: 'nope' });
      expect(bad.command).toBe(TcpCommand.NotAuthenticated);
      const readAll = encodeMessage('ReadAllEvents', {
        commitPosition: 0,
        preparePosition: 0,
        maxCount: 1,
        resolveLinkTos: false,
        requireLeader: false,
      });
      // After a failed Authenticate, packages without their own credentials are not authenticated either.
      expect((await c.request(TcpCommand.ReadAllEventsForward, readAll)).command).toBe(TcpCommand.NotAuthenticated);
      const good = await c.request(TcpCommand.Authenticate, null, ADMIN);
      expect(good.command).toBe(TcpCommand.Authenticated);
      const all = await c.request(TcpCommand.ReadAllEventsForward, readAll);
      expect(all.command).toBe(TcpCommand.ReadAllEventsForwardCompleted);
      expect(decodeMessage<{ result: number }>('ReadAllEventsCompleted', all.body).result).toBe(0);
      expect(fx.server.connections.list().some((x) => x.user === 'admin')).toBe(true);
    } finally {
      c.destroy();
    }
  });

  it('runs filtered $all reads forward and backward', async () => {
    const s = stream('filtered');
    const type = `Filt${crypto.randomUUID().slice(0, 6)}`;
    await client.request(
      TcpCommand.WriteEvents,
      writeEventsBody(s, [
        { type: `${type}A`, data: '{}' },
        { type: 'Other', data: '{}' },
        { type: `${type}B`, data: '{}' },
      ]),
    );
    const body = (maxCount: number, maxSearchWindow: number, commit: number, prepare: number, filter: object) =>
      encodeMessage('FilteredReadAllEvents', {
        commitPosition: commit,
        preparePosition: prepare,
        maxCount,
        maxSearchWindow,
        resolveLinkTos: false,
        requireLeader: false,
        filter,
      });
    interface Filtered {
      result: number;
      isEndOfStream: boolean;
      events: { event: { eventType: string } }[];
      nextCommitPosition: Int64;
      nextPreparePosition: Int64;
    }

    const byType = await client.request(
      TcpCommand.FilteredReadAllEventsForward,
      body(100, 10_000, 0, 0, { context: 1, type: 1, data: [type] }),
      ADMIN,
    );
    expect(byType.command).toBe(TcpCommand.FilteredReadAllEventsForwardCompleted);
    const forward = decodeMessage<Filtered>('FilteredReadAllEventsCompleted', byType.body);
    expect(forward.result).toBe(0);
    expect(forward.events.map((e) => e.event.eventType)).toEqual([`${type}A`, `${type}B`]);
    expect(forward.isEndOfStream).toBe(true);

    const byStream = await client.request(
      TcpCommand.FilteredReadAllEventsBackward,
      body(100, 10_000, -1, -1, { context: 0, type: 0, data: [`^${s}$`] }),
      ADMIN,
    );
    expect(byStream.command).toBe(TcpCommand.FilteredReadAllEventsBackwardCompleted);
    expect(
      decodeMessage<Filtered>('FilteredReadAllEventsCompleted', byStream.body).events.map((e) => e.event.eventType),
    ).toEqual([`${type}B`, 'Other', `${type}A`]);

    const badRegex = await client.request(
      TcpCommand.FilteredReadAllEventsForward,
      body(10, 10, 0, 0, { context: 0, type: 0, data: ['('] }),
      ADMIN,
    );
    expect(decodeMessage<Filtered>('FilteredReadAllEventsCompleted', badRegex.body).result).toBe(2);

    const denied = await client.request(
      TcpCommand.FilteredReadAllEventsForward,
      body(10, 10, 0, 0, { context: 1, type: 1, data: ['x'] }),
    );
    expect(decodeMessage<Filtered>('FilteredReadAllEventsCompleted', denied.body).result).toBe(3);
  });

  it('answers ScavengeDatabase: Unauthorized for anonymous, Started for an admin', async () => {
    const anon = await client.request(TcpCommand.ScavengeDatabase);
    expect(decodeMessage<{ result: number }>('ScavengeDatabaseResponse', anon.body).result).toBe(2);
    const asAdmin = await client.request(TcpCommand.ScavengeDatabase, null, ADMIN);
    const started = decodeMessage<{ result: number; scavengeId: string }>('ScavengeDatabaseResponse', asAdmin.body);
    expect(started.result).toBe(0); // Started
    expect(started.scavengeId).toMatch(/^[0-9a-f-]{36}$/);
    // Asked again while it runs: InProgress, naming the running scavenge.
    const again = decodeMessage<{ result: number; scavengeId: string }>(
      'ScavengeDatabaseResponse',
      (await client.request(TcpCommand.ScavengeDatabase, null, ADMIN)).body,
    );
    if (again.result === 1) expect(again.scavengeId).toBe(started.scavengeId);
    else expect(again).toMatchObject({ result: 0 }); // the first had already finished: a new one started
  });

  it.each([
    ['an oversize length', 64 * 1024 * 1024 + 1],
    ['a negative length', -1],
    ['a zero length', 0],
    ['a length shorter than a package header', 10],
  ])('closes the connection with a connection-wide BadRequest on %s', async (_name, length) => {
    const c = await RawClient.connect(fx.port);
    const header = Buffer.alloc(4);
    header.writeInt32LE(length, 0);
    c.write(Buffer.concat([header, Buffer.alloc(Math.max(0, Math.min(length, 32)))]));
    const bad = await c.next((p) => p.command === TcpCommand.BadRequest);
    expect(bad.correlationId.equals(Buffer.alloc(16))).toBe(true);
    await c.closed;
    expect((await client.request(TcpCommand.Ping)).command).toBe(TcpCommand.Pong);
  });

  it('closes the connection when credentials run past the package end', async () => {
    const c = await RawClient.connect(fx.port);
    const frame = encodeFrame(TcpCommand.Ping, newId(), null, ADMIN);
    frame.writeInt32LE(frame.length - 4 - 3, 0);
    c.write(frame.subarray(0, frame.length - 3));
    const bad = await c.next((p) => p.command === TcpCommand.BadRequest);
    expect(bad.correlationId.equals(Buffer.alloc(16))).toBe(true);
    await c.closed;
  });

  it('refuses the TrustedWrite flag and closes', async () => {
    const c = await RawClient.connect(fx.port);
    const reply = await c.request(
      TcpCommand.WriteEvents,
      writeEventsBody(stream('trusted'), [{ type: 'A', data: '{}' }]),
      { flags: TcpFlags.TrustedWrite },
    );
    expect(reply.command).toBe(TcpCommand.BadRequest);
    await c.closed;
  });
});

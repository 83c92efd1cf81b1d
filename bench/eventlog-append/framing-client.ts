/**
 * A reader that only frames: the read rows' requests sent over a raw socket with the same credentials per
 * request as node-eventstore-client sends, and each answer cut from the stream of frames and walked at its top
 * level (events counted and skipped whole, the next position taken), never decoded. Against it the server's
 * rate is what the server can answer when its reader costs next to nothing, which node-eventstore-client
 * (decoding 1,000 events a page with protobufjs on the other of two cores) is not.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import protobuf from 'protobufjs';
import { FrameReader, TcpCommand, encodeFrame, encodeMessage, parsePackage } from '../../server/eventlog/index.ts';

const CREDENTIALS = { login: 'admin', password: 'changeit' };
/** Protobuf wire types: the length-delimited fields are skipped by their length. */
const LENGTH_DELIMITED = 2;

type Credentials = { login: string; password: string } | null;

export interface FramingConnection {
  /** Sends a request (with credentials in its frame, as node-eventstore-client does) and gives the answer's frame. */
  request(command: number, body: Uint8Array, credentials?: Credentials): Promise<{ command: number; body: Buffer }>;
  close(): void;
}

export function connectFraming(port: number): Promise<FramingConnection> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  const waiting = new Map<string, (reply: { command: number; body: Buffer }) => void>();
  const reader = new FrameReader({ maxFrameBytes: 64 * 1024 * 1024, minFrameBytes: 18 });
  socket.on('data', (chunk) =>
    reader.push(chunk, (frame) => {
      const pkg = parsePackage(frame);
      if (pkg.command === TcpCommand.HeartbeatRequestCommand) {
        socket.write(encodeFrame(TcpCommand.HeartbeatResponseCommand, pkg.correlationId, null));
        return;
      }
      const key = Buffer.from(pkg.correlationId).toString('latin1');
      const done = waiting.get(key);
      if (!done) return;
      waiting.delete(key);
      done({ command: pkg.command, body: pkg.body });
    }),
  );
  const connection: FramingConnection = {
    request(command, body, credentials = CREDENTIALS) {
      const correlationId = crypto.randomBytes(16);
      return new Promise((resolve) => {
        waiting.set(correlationId.toString('latin1'), resolve);
        socket.write(encodeFrame(command, correlationId, body, credentials ?? {}));
      });
    },
    close: () => socket.destroy(),
  };
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(connection));
    socket.once('error', reject);
  });
}

function toNumber(value: number | { toNumber(): number }): number {
  return typeof value === 'number' ? value : value.toNumber();
}

/** A reply's top-level fields: repeated `eventsField` counted, the numeric fields asked for read, the rest skipped. */
function walk(body: Buffer, eventsField: number, numbers: readonly number[]): { events: number; values: number[] } {
  const reader = protobuf.Reader.create(body);
  const values: number[] = [];
  let events = 0;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === eventsField && wireType === LENGTH_DELIMITED) {
      events++;
      reader.skipType(wireType);
    } else if (numbers.includes(field))
      values[numbers.indexOf(field)] = toNumber(reader.int64() as unknown as number | { toNumber(): number });
    else reader.skipType(wireType);
  }
  return { events, values };
}

/** Pages through a stream as readStreamAll does; the number of events read. */
export async function frameStreamAll(
  conn: FramingConnection,
  stream: string,
  forward: boolean,
  page: number,
): Promise<number> {
  let read = 0;
  let from = forward ? 0 : -1;
  const command = forward ? TcpCommand.ReadStreamEventsForward : TcpCommand.ReadStreamEventsBackward;
  for (;;) {
    const body = encodeMessage('ReadStreamEvents', {
      eventStreamId: stream,
      fromEventNumber: from,
      maxCount: page,
      resolveLinkTos: false,
      requireLeader: false,
    });
    // ReadStreamEventsCompleted: 1 events, 3 next_event_number, 5 is_end_of_stream.
    const reply = walk((await conn.request(command, body)).body, 1, [3, 5]);
    read += reply.events;
    if (reply.values[1] === 1) return read;
    from = reply.values[0];
  }
}

/** Pages through `$all` forward as readAllLog does; the number of events read. */
export async function frameAllLog(
  conn: FramingConnection,
  page: number,
  limit: number,
  from = { commit: 0, prepare: 0 },
): Promise<number> {
  let read = 0;
  let { commit, prepare } = from;
  while (read < limit) {
    const body = encodeMessage('ReadAllEvents', {
      commitPosition: commit,
      preparePosition: prepare,
      maxCount: page,
      resolveLinkTos: false,
      requireLeader: false,
    });
    // ReadAllEventsCompleted: 1 commit_position, 3 events, 4 next_commit_position, 5 next_prepare_position.
    const reply = walk((await conn.request(TcpCommand.ReadAllEventsForward, body)).body, 3, [1, 4, 5]);
    read += reply.events;
    // The end of `$all`: an empty page, or one whose next position is where it started (as the client sees it).
    if (reply.events === 0 || (reply.values[1] === commit && reply.values[2] === prepare)) break;
    commit = reply.values[1];
    prepare = reply.values[2];
  }
  return read;
}

/**
 * The client-side limit for the append benchmark: a TCP server speaking the event log's framing that
 * acknowledges every WriteEvents at once with WriteEventsCompleted Success and stores nothing. Driven by
 * the same node-eventstore-client scenarios, it shows how many appends per second the client process can
 * issue on this machine; the real server cannot be measured above that.
 *
 * With UPSTREAM=<port> it also answers reads: the first time a read request (same command, same body)
 * arrives it is forwarded to the real server at that port and the answer kept; later identical requests
 * get the kept answer at once. Reading the same pages twice, the second pass measures what the client
 * can read when the server costs nothing.
 *
 * With ACK_PACE_MS=<ms> it reads in the real server's rhythm: after taking a socket's data it stops reading that
 * socket until the next tick of a shared <ms> timer, so frames wait in the kernel as they do while the server
 * commits, and each read takes as many (one read, one write and one wake-up for many appends). Unpaced it wakes
 * every few appends (perf stat at 32,000/s: 0.35 reads, 0.35 writes and 0.33 context switches per append), which
 * the server, busy with SQLite between reads, never does (0.04 reads per append; paced at its commit interval, 0.05).
 *
 *   node bench/ack-server.ts     (prints "ack server listening on 127.0.0.1:<port>")
 *   UPSTREAM=1113 node bench/ack-server.ts
 *   ACK_PACE_MS=6 node bench/ack-server.ts
 */
import net from 'node:net';
import {
  TcpCommand,
  FrameReader,
  decodeMessage,
  encodeFrame,
  encodeWriteEventsCompleted,
  parsePackage,
} from '../server/eventlog/index.ts';
import { connectFraming } from './eventlog-append/framing-client.ts';

interface WriteEvents {
  eventStreamId: string;
  events: unknown[];
}

const lastByStream = new Map<string, number>();
let position = 0;

const READS = new Set<number>([
  TcpCommand.ReadStreamEventsForward,
  TcpCommand.ReadStreamEventsBackward,
  TcpCommand.ReadAllEventsForward,
  TcpCommand.ReadAllEventsBackward,
]);
/** Answers to read requests by command and request body: [reply command, reply body]. */
const readAnswers = new Map<string, Promise<[number, Buffer]>>();
const upstream = process.env.UPSTREAM ? await connectFraming(Number(process.env.UPSTREAM)) : null;

const PACE_MS = Number(process.env.ACK_PACE_MS ?? 0);
const held = new Set<net.Socket>();
let resumeScheduled = false;
/** Paced: the socket is read again at the next tick of the shared timer. */
function holdBack(socket: net.Socket): void {
  socket.pause();
  held.add(socket);
  if (resumeScheduled) return;
  resumeScheduled = true;
  setTimeout(() => {
    resumeScheduled = false;
    for (const s of held) s.resume();
    held.clear();
  }, PACE_MS);
}

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  const reader = new FrameReader({ maxFrameBytes: 64 * 1024 * 1024, minFrameBytes: 18 });
  let out: Buffer[] = [];
  let scheduled = false;
  /** Credentials the client authenticated this connection with (sent upstream with its reads). */
  let credentials: { login: string | null; password: string | null } = { login: null, password: null };
  const send = (command: number, correlationId: Uint8Array, body?: Uint8Array) => {
    out.push(encodeFrame(command, correlationId, body ?? new Uint8Array(0)));
    if (scheduled) return;
    scheduled = true;
    process.nextTick(() => {
      scheduled = false;
      const chunks = out;
      out = [];
      socket.write(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
  };
  socket.on('data', (chunk) => {
    reader.push(chunk, (frame) => {
      const pkg = parsePackage(frame);
      if (pkg.command === TcpCommand.HeartbeatRequestCommand)
        send(TcpCommand.HeartbeatResponseCommand, pkg.correlationId);
      else if (pkg.command === TcpCommand.IdentifyClient) send(TcpCommand.ClientIdentified, pkg.correlationId);
      else if (pkg.command === TcpCommand.Authenticate) {
        credentials = { login: pkg.login, password: pkg.password };
        send(TcpCommand.Authenticated, pkg.correlationId);
      } else if (pkg.command === TcpCommand.WriteEvents) {
        const request = decodeMessage<WriteEvents>('WriteEvents', pkg.body);
        const first = (lastByStream.get(request.eventStreamId) ?? -1) + 1;
        const last = first + request.events.length - 1;
        lastByStream.set(request.eventStreamId, last);
        position += request.events.length;
        // The server's own encoder: the floor answers with the same bytes at the same cost.
        send(
          TcpCommand.WriteEventsCompleted,
          pkg.correlationId,
          encodeWriteEventsCompleted({
            result: 0,
            firstEventNumber: first,
            lastEventNumber: last,
            preparePosition: position,
            commitPosition: position,
          }),
        );
      } else if (upstream && READS.has(pkg.command)) {
        const login = pkg.login ?? credentials.login;
        const key = `${pkg.command}:${login}:${pkg.body.toString('base64')}`;
        let answer = readAnswers.get(key);
        if (!answer) {
          const password = (pkg.login === null ? credentials.password : pkg.password) ?? '';
          answer = upstream
            .request(pkg.command, Buffer.from(pkg.body), login === null ? null : { login, password })
            .then((reply): [number, Buffer] => [reply.command, Buffer.from(reply.body)]);
          readAnswers.set(key, answer);
        }
        const correlationId = pkg.correlationId;
        void answer.then(([command, body]) => send(command, correlationId, body));
      } else send(TcpCommand.BadRequest, pkg.correlationId);
    });
    if (PACE_MS > 0) holdBack(socket);
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => held.delete(socket));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as net.AddressInfo;
  console.log(`ack server listening on 127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => process.exit(0));

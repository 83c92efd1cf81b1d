/**
 * The client-side limit for the append benchmark: a TCP server speaking the event log's framing that
 * acknowledges every WriteEvents at once with WriteEventsCompleted Success and stores nothing. Driven by
 * the same node-eventstore-client scenarios, it shows how many appends per second the client process can
 * issue on this machine; the real server cannot be measured above that.
 *
 *   node bench/ack-server.ts     (prints "ack server listening on 127.0.0.1:<port>")
 */
import net from 'node:net';
import { TcpCommand } from '../server/eventlog/tcp/commands.ts';
import { FrameReader } from '../server/eventlog/tcp/framing.ts';
import { decodeMessage, encodeMessage } from '../server/eventlog/tcp/messages.ts';
import { encodeFrame, parsePackage } from '../server/eventlog/tcp/package.ts';

interface WriteEvents {
  eventStreamId: string;
  events: unknown[];
}

const lastByStream = new Map<string, number>();
let position = 0;

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  const reader = new FrameReader({ maxFrameBytes: 64 * 1024 * 1024, minFrameBytes: 18 });
  let out: Buffer[] = [];
  let scheduled = false;
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
      if (pkg.command === TcpCommand.HeartbeatRequestCommand) send(TcpCommand.HeartbeatResponseCommand, pkg.correlationId);
      else if (pkg.command === TcpCommand.IdentifyClient) send(TcpCommand.ClientIdentified, pkg.correlationId);
      else if (pkg.command === TcpCommand.WriteEvents) {
        const request = decodeMessage<WriteEvents>('WriteEvents', pkg.body);
        const first = (lastByStream.get(request.eventStreamId) ?? -1) + 1;
        const last = first + request.events.length - 1;
        lastByStream.set(request.eventStreamId, last);
        position += request.events.length;
        send(
          TcpCommand.WriteEventsCompleted,
          pkg.correlationId,
          encodeMessage('WriteEventsCompleted', { result: 0, firstEventNumber: first, lastEventNumber: last, preparePosition: position, commitPosition: position }),
        );
      } else send(TcpCommand.BadRequest, pkg.correlationId);
    });
  });
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as net.AddressInfo;
  console.log(`ack server listening on 127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => process.exit(0));

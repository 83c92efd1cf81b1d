/**
 * The physical limit for the fan-out benchmark: a bare loop that writes frames of the delivered size to
 * every subscriber socket, paced like the benchmark's writer (every millisecond, what is due), with no
 * store, protocol or subscription logic. Its CPU time per delivered frame is what the kernel and Node's
 * socket writes cost on this machine; the server's figure is compared with it.
 *
 *   SUBSCRIBERS=100 RATE=5000 SECONDS=5 FRAME_BYTES=400 node bench/fanout-ceiling.ts
 *   (prints "listening on <port>", then, once every subscriber connected and the run ended, a JSON line)
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { writeSyscallsOf } from './proc-io.ts';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 100);
const RATE = Number(process.env.RATE ?? 5000);
const SECONDS = Number(process.env.SECONDS ?? 5);
const FRAME_BYTES = Number(process.env.FRAME_BYTES ?? 400);

const frame = Buffer.alloc(FRAME_BYTES, 0x61);
const sockets: net.Socket[] = [];

function run(): void {
  const cpuBefore = process.cpuUsage();
  const writesBefore = writeSyscallsOf('self');
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= SECONDS) {
      clearInterval(timer);
      const cpu = process.cpuUsage(cpuBefore);
      const writes = writeSyscallsOf('self') - writesBefore;
      console.log(JSON.stringify({ frames: sent * sockets.length, cpuSeconds: (cpu.user + cpu.system) / 1e6, writes }));
      for (const s of sockets) s.end();
      return;
    }
    const due = Math.floor(elapsed * RATE) - sent;
    if (due <= 0) return;
    for (const socket of sockets) {
      // One buffer per socket per tick, as a server framing its queued packages at flush.
      const out = Buffer.allocUnsafe(due * FRAME_BYTES);
      for (let k = 0; k < due; k++) frame.copy(out, k * FRAME_BYTES);
      socket.write(out);
    }
    sent += due;
  }, 1);
}

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  sockets.push(socket);
  if (sockets.length === SUBSCRIBERS) run();
});
server.listen(0, '127.0.0.1', () => console.log(`listening on ${(server.address() as net.AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));

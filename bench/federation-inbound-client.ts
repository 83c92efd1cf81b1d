/**
 * bench:federation's inbound clients (started by bench/federation-delivery.ts), in a process of their own so
 * the server's CPU is measured alone: reads a job (JSON on stdin: pre-signed deliveries, the server's port, a
 * read token), POSTs the deliveries to the shared inbox over `connections` keep-alive connections while one
 * more client reads the home timeline back to back, and prints the answers, the read latencies and its own CPU
 * while sending (JSON on stdout).
 *
 * The deliveries go out as request bytes built before the clock starts, one at a time per socket, as a
 * keep-alive HTTP/1.1 client sends them: the server sees the same requests fetch sent, and the senders' CPU
 * (1.6 ms per activity with fetch, on the server's two cores) stays out of the measure.
 */
import net from 'node:net';

interface Job {
  port: number;
  token: string;
  connections: number;
  deliveries: { headers: Record<string, string>; body: string }[];
}

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Job;
const base = `http://127.0.0.1:${job.port}`;

/** A delivery as the bytes of its request. */
function requestBytes({ headers, body }: Job['deliveries'][number]): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  const lines = [`POST /inbox HTTP/1.1`, `host: 127.0.0.1:${job.port}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers))
    if (name !== 'host' && name !== 'content-length') lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${bytes.length}`, '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]);
}

/**
 * One keep-alive connection: sends each request and resolves with its answer's status once the answer's body
 * (its Content-Length) has arrived.
 */
async function connection(): Promise<(request: Buffer) => Promise<number>> {
  const socket = net.connect(job.port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received: Buffer = Buffer.alloc(0);
  let waiting: { resolve: (status: number) => void; reject: (err: Error) => void } | null = null;
  const answered = () => {
    const end = received.indexOf('\r\n\r\n');
    if (end < 0 || !waiting) return;
    const head = received.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (received.length < end + 4 + length) return;
    received = received.subarray(end + 4 + length);
    const done = waiting;
    waiting = null;
    done.resolve(Number(head.slice(9, 12)));
  };
  socket.on('data', (chunk: Buffer) => {
    received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
    answered();
  });
  const fail = (err: Error) => waiting?.reject(err);
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the server closed a delivery connection')));
  return (request) =>
    new Promise<number>((resolve, reject) => {
      waiting = { resolve, reject };
      socket.write(request);
    });
}

const requests = job.deliveries.map(requestBytes);
const senders = await Promise.all(Array.from({ length: job.connections }, connection));

const readLatencies: number[] = [];
let sending = true;
const reader = (async () => {
  while (sending) {
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/timelines/home?limit=20`, {
      headers: { authorization: `Bearer ${job.token}` },
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the home timeline answered ${res.status}`);
    readLatencies.push(performance.now() - started);
  }
})();

const statuses: Record<number, number> = {};
let next = 0;
const started = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(
  senders.map(async (send) => {
    while (next < requests.length) {
      const status = await send(requests[next++]);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }),
);
const sentMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
sending = false;
await reader;
process.stdout.write(JSON.stringify({ statuses, sentMs, readLatencies, cpuMicros: cpu.user + cpu.system }));
process.exit(0);

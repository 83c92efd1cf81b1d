/**
 * bench:federation's inbound clients (started by bench/federation-delivery.ts), in a process of their own so
 * the server's CPU is measured alone: reads a job (JSON on stdin: pre-signed deliveries, the server's port, a
 * read token), POSTs the deliveries to the shared inbox over `connections` connections while one more client
 * reads the home timeline back to back, and prints the answers, the read latencies and its own CPU while sending (JSON on stdout).
 */
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
  Array.from({ length: job.connections }, async () => {
    while (next < job.deliveries.length) {
      const { headers, body } = job.deliveries[next++];
      const res = await fetch(`${base}/inbox`, { method: 'POST', headers, body });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }),
);
const sentMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
sending = false;
await reader;
process.stdout.write(JSON.stringify({ statuses, sentMs, readLatencies, cpuMicros: cpu.user + cpu.system }));

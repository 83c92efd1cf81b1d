/**
 * The soak's view into the server's heap: the server runs with `--inspect` on a loopback port and the soak speaks
 * the DevTools protocol to it over one WebSocket. A handful of methods and one event are all it needs, hence no
 * client library: the heap in use after a full collection and the main thread's busy time (each minute), and heap
 * snapshots written to files (on demand).
 */
import fs from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';

/** A free loopback port for the server's inspector. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface HeapInspector {
  /** Collects garbage, then answers the bytes the heap holds. */
  usedAfterGc(): Promise<number>;
  /** The main thread's time busy and idle so far, in ms (Node's event-loop utilization: how much headroom it has). */
  eventLoop(): Promise<{ active: number; idle: number }>;
  /** The server's process.memoryUsage(): V8's heap as committed, external memory and ArrayBuffers among it. */
  memoryUsage(): Promise<NodeJS.MemoryUsage>;
  /** Writes a heap snapshot (DevTools' .heapsnapshot format) to `file`. */
  snapshot(file: string): Promise<void>;
  close(): void;
}

export async function inspectHeap(port: number): Promise<HeapInspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 0 });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  let onChunk: ((chunk: string) => void) | null = null;
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      method?: string;
      params?: { chunk: string };
      result?: unknown;
      error?: { message: string };
    };
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') onChunk?.(message.params!.chunk);
    else if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (message) => {
        pending.delete(id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result as T);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async usedAfterGc() {
      await send('HeapProfiler.collectGarbage');
      return (await send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
    },
    async eventLoop() {
      const answer = await send<{ result: { value: string } }>('Runtime.evaluate', {
        expression: 'JSON.stringify(performance.eventLoopUtilization())',
        returnByValue: true,
      });
      return JSON.parse(answer.result.value) as { active: number; idle: number };
    },
    async memoryUsage() {
      const answer = await send<{ result: { value: string } }>('Runtime.evaluate', {
        expression: 'JSON.stringify(process.memoryUsage())',
        returnByValue: true,
      });
      return JSON.parse(answer.result.value) as NodeJS.MemoryUsage;
    },
    async snapshot(file) {
      const out = fs.createWriteStream(file);
      onChunk = (chunk) => out.write(chunk);
      try {
        await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      } finally {
        onChunk = null;
        await new Promise((resolve) => out.end(resolve));
      }
    },
    close: () => ws.close(),
  };
}

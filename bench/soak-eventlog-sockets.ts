/**
 * The soak's UI live-tail WebSockets (`/api/homeport/v1/eventlog/live`), in a process of their own (bench/soak.ts
 * starts it), each counting the SoakTick events it receives.
 */
import WebSocket from 'ws';
import { answerCalls, ownCpuSeconds } from './soak-ipc.ts';
import { countOccurrences, deliveries, openSocket } from './soak-clients.ts';

// A thousand sockets each get every event: counting the event type in the raw frame costs a fraction of parsing
// it (JSON.stringify writes keys in order and escapes quotes inside strings, so the pattern cannot be inside data).
const TICK = Buffer.from('"eventType":"SoakTick"');
const SKIPPED = Buffer.from('{"type":"skipped"');

let sockets: WebSocket[] = [];
let received: number[] = [];
let errors = 0;
let skipped = 0;
let closing = false;

answerCalls({
  async setup({ httpUrl, token, sockets: count }: { httpUrl: string; token: string; sockets: number }) {
    received = new Array<number>(count).fill(0);
    const url = `${httpUrl.replace('http', 'ws')}/api/homeport/v1/eventlog/live?access_token=${token}&hideSystem=true`;
    for (let i = 0; i < count; i++) {
      const ws = openSocket(url, undefined, {
        onMessage(data) {
          received[i] += countOccurrences(data, TICK);
          if (data.subarray(0, SKIPPED.length).equals(SKIPPED)) skipped++;
        },
        onDrop() {
          if (!closing) errors++;
        },
      });
      // The first message says it is subscribed.
      await new Promise<void>((resolve, reject) => {
        ws.once('message', () => resolve());
        ws.once('error', reject);
      });
      sockets.push(ws);
    }
  },
  status: () => ({ errors, skipped, cpuSeconds: ownCpuSeconds() }),
  deliveries: (expected: number) => deliveries(received, expected),
  close() {
    closing = true;
    for (const ws of sockets) ws.terminate();
    sockets = [];
  },
});

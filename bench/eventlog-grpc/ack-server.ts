/**
 * The gRPC client's own limit for bench/eventlog-grpc.ts: a server in another process that answers Append and
 * Read at once, storing nothing (`node bench/eventlog-grpc.ts --ack-server` runs it). It is also the `$all`
 * fan-out's floor: a subscription Read gets `confirmation` and `caught_up`, then, for every event appended, the
 * same pre-encoded event on every open subscription (grpc-js's own per-message cost, no store, no encoding).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { serviceDefinition } from '../../server/eventlog/index.ts';
import { cpuSecondsOf } from '../support.ts';
import { type CpuClock, DATA, METADATA } from './scenarios.ts';

/** The stream the floor's fan-out events carry (the fan-out counts only its own stream's events). */
export const FAN_STREAM = 'fan-grpc';

const MAIN = path.resolve(import.meta.dirname, '..', 'eventlog-grpc.ts');

export function runAckServer(): void {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  let position = 0;
  const event = (n: number) => ({
    event: {
      event: {
        id: { string: crypto.randomUUID() },
        stream_identifier: { stream_name: Buffer.from('ack') },
        stream_revision: String(n),
        prepare_position: String(n + 1),
        commit_position: String(n + 1),
        metadata: { type: 'BenchEvent', created: '0', 'content-type': 'application/json' },
        custom_metadata: Buffer.from(JSON.stringify(METADATA)),
        data: Buffer.from(JSON.stringify(DATA)),
      },
      commit_position: String(n + 1),
    },
  });
  const streams = serviceDefinition('event_store.client.streams.Streams');
  // One answer encoded once and sent again and again: what remains is grpc-js's and HTTP/2's work per message.
  const encodedEvent = streams.Read.responseSerialize(event(0));
  const fanEvent = event(0);
  fanEvent.event.event.stream_identifier.stream_name = Buffer.from(FAN_STREAM);
  const encodedFanEvent = streams.Read.responseSerialize(fanEvent);
  const subscribers = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  server.addService(streams, {
    Append: (call: grpc.ServerReadableStream<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      let events = 0;
      call.on('data', () => events++);
      call.on('end', () => {
        position += events;
        for (const subscriber of subscribers) for (let i = 0; i < events; i++) subscriber.write(encodedFanEvent);
        callback(null, {
          success: {
            current_revision: String(position),
            position: { commit_position: String(position), prepare_position: String(position) },
          },
        });
      });
    },
    Read: (call: grpc.ServerWritableStream<{ options: { count?: string; subscription?: object } }, unknown>) => {
      if (call.request.options.subscription) {
        call.write({ confirmation: { subscription_id: crypto.randomUUID() } });
        call.write({ caught_up: {} });
        subscribers.add(call);
        call.on('cancelled', () => subscribers.delete(call));
        return;
      }
      const count = Math.min(Number(call.request.options.count ?? 0), 100_000);
      let n = 0;
      const pump = () => {
        while (n < count) {
          n++;
          if (!call.write(encodedEvent)) return void call.once('drain', pump);
        }
        call.end();
      };
      pump();
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(`ack server on ${port}`);
  });
}

export function startAckServer(): Promise<{ child: ChildProcess; url: string; cpu: CpuClock }> {
  const child = spawn(process.execPath, [MAIN, '--ack-server'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    child.stdout!.on('data', (d) => {
      const m = /ack server on (\d+)/.exec(String(d));
      if (m) resolve({ child, url: `kurrentdb://127.0.0.1:${m[1]}?tls=false`, cpu: () => cpuSecondsOf(child.pid!) });
    });
  });
}

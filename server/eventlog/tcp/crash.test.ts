import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../../testing/serve-process.ts';
import { connectClient, jsonEvent } from './testing/client-connection.ts';

/**
 * Crash safety: `homeport serve` is SIGKILLed at random moments while clients append concurrently.
 * After every restart each acknowledged event must be readable, in order, in its stream and in $all,
 * with no gaps and no duplicates.
 */

const ROUNDS = 5;
const WORKERS = 4;

describe('crash safety of acknowledged appends', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-crash-'));
  let server: ServeProcess | null = null;

  afterAll(async () => {
    if (server) {
      await server.stop('SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged event across ${ROUNDS} SIGKILLs`, async () => {
    const es = (await import('node-eventstore-client')).default;
    /** Acknowledged event ids per stream, with the number the server gave each. */
    const acknowledged = new Map<string, Map<string, number>>();
    const streams = Array.from({ length: WORKERS }, (_, w) => `crash-${w}`);
    for (const s of streams) acknowledged.set(s, new Map());

    const unexpected: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      server = await startServeProcess({ dataDir });
      const conn = await connectClient(
        es,
        `tcp://127.0.0.1:${server.tcpPort}`,
        { maxReconnections: 0, maxRetries: 0 },
        `crash-${round}`,
      );
      conn.on('error', () => {});
      let stop = false;
      let killed = false;
      const worker = async (stream: string) => {
        // Unacknowledged writes of the previous round may or may not have landed: start from what is there.
        // On a loaded machine the kill may come before this first read is answered: then the round wrote nothing.
        const last = await conn.readStreamEventsBackward(stream, -1, 1, false).catch((err: unknown) => {
          if (!killed) throw err;
          return null;
        });
        if (!last) return;
        let version = last.status === 'success' ? last.lastEventNumber.toNumber() : -1;
        while (!stop) {
          const batch = Array.from({ length: 1 + crypto.randomInt(3) }, (_, i) => jsonEvent(es, 'Crash', { round, i }));
          try {
            const r = await conn.appendToStream(stream, version, batch);
            const next = r.nextExpectedVersion.toNumber();
            batch.forEach((e: { eventId: string }, i: number) =>
              acknowledged.get(stream)!.set(e.eventId, next - batch.length + 1 + i),
            );
            version = next;
          } catch (err) {
            // Only the kill may end a writer: a WrongExpectedVersion or any other refusal before it is a failure.
            if (!killed)
              unexpected.push(`${stream}: ${(err as Error)?.name ?? ''} ${(err as Error)?.message ?? String(err)}`);
            return;
          }
        }
      };
      const workers = streams.map(worker);
      await new Promise((r) => setTimeout(r, 150 + crypto.randomInt(500)));
      killed = true;
      await server.stop('SIGKILL');
      stop = true;
      conn.close(); // fails the appends that were in flight
      await Promise.all(workers);
      server = null;
    }

    expect(unexpected).toEqual([]);
    server = await startServeProcess({ dataDir });
    const conn = await connectClient(
      es,
      `tcp://127.0.0.1:${server.tcpPort}`,
      { defaultUserCredentials: new es.UserCredentials('admin', 'changeit') },
      'verify',
    );
    try {
      let total = 0;
      for (const stream of streams) {
        const ids: string[] = [];
        let from = 0;
        for (;;) {
          const slice = await conn.readStreamEventsForward(stream, from, 1000, false);
          slice.events.forEach((e: { event: { eventId: string; eventNumber: { toNumber(): number } } }) => {
            expect(e.event.eventNumber.toNumber()).toBe(ids.length); // no gaps
            ids.push(e.event.eventId);
          });
          if (slice.isEndOfStream) break;
          from = slice.nextEventNumber.toNumber();
        }
        expect(new Set(ids).size).toBe(ids.length);
        for (const [id, number] of acknowledged.get(stream)!)
          expect(ids[number], `acknowledged event ${stream}@${number}`).toBe(id);
        total += acknowledged.get(stream)!.size;
      }
      expect(total).toBeGreaterThan(0);

      // $all: each stream's events once, in stream order, positions strictly increasing.
      const inAll = new Map<string, number[]>();
      const allIds = new Set<string>();
      let position = es.positions.start;
      let previous: { compareTo(o: unknown): number } | null = null;
      for (;;) {
        const slice = await conn.readAllEventsForward(position, 1000, false);
        for (const e of slice.events) {
          if (previous) expect(e.originalPosition.compareTo(previous)).toBeGreaterThan(0);
          previous = e.originalPosition;
          const rec = e.originalEvent;
          if (!streams.includes(rec.eventStreamId)) continue;
          expect(allIds.has(rec.eventId)).toBe(false);
          allIds.add(rec.eventId);
          const list = inAll.get(rec.eventStreamId) ?? [];
          list.push(rec.eventNumber.toNumber());
          inAll.set(rec.eventStreamId, list);
        }
        if (slice.isEndOfStream) break;
        position = slice.nextPosition;
      }
      for (const stream of streams) {
        const numbers = inAll.get(stream) ?? [];
        expect(numbers).toEqual(numbers.map((_, i) => i));
        for (const id of acknowledged.get(stream)!.keys()) expect(allIds.has(id)).toBe(true);
      }
    } finally {
      conn.close();
    }
  }, 180_000); // five server starts: only a bound against hanging, generous for a loaded machine

  it('keeps an open explicit transaction across a clean restart and across a SIGKILL', async () => {
    const es = (await import('node-eventstore-client')).default;
    const admin = new es.UserCredentials('admin', 'changeit');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-tx-restart-'));
    let running: ServeProcess | null = null;
    try {
      for (const stop of ['SIGTERM', 'SIGKILL'] as const) {
        const stream = `tx-across-${stop}`;
        running = await startServeProcess({ dataDir: dir });
        const first = await connectClient(
          es,
          `tcp://127.0.0.1:${running.tcpPort}`,
          { defaultUserCredentials: admin, maxReconnections: 0 },
          `tx-${stop}-1`,
        );
        first.on('error', () => {});
        const tx = await first.startTransaction(stream, es.expectedVersion.noStream);
        await tx.write([jsonEvent(es, 'InTx', { n: 1 }), jsonEvent(es, 'InTx', { n: 2 })]);
        const transactionId = tx.transactionId;
        first.close();
        await running.stop(stop);

        running = await startServeProcess({ dataDir: dir });
        const second = await connectClient(
          es,
          `tcp://127.0.0.1:${running.tcpPort}`,
          { defaultUserCredentials: admin },
          `tx-${stop}-2`,
        );
        try {
          // Nothing is visible before the commit, after the restart as before it.
          expect((await second.readStreamEventsForward(stream, 0, 10, false)).status).toBe('streamNotFound');
          const resumed = second.continueTransaction(transactionId);
          await resumed.write([jsonEvent(es, 'InTx', { n: 3 })]);
          const result = await resumed.commit();
          expect(result.nextExpectedVersion.toNumber()).toBe(2);
          const read = await second.readStreamEventsForward(stream, 0, 10, false);
          expect(read.events.map((e: { event: { data: Buffer } }) => JSON.parse(e.event.data.toString()).n)).toEqual([
            1, 2, 3,
          ]);
        } finally {
          second.close();
        }
        const exited = running.ended;
        running.child.kill('SIGTERM');
        await exited;
        running = null;
      }
    } finally {
      if (running) running.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000); // three server starts: only a bound against hanging
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient, jsonEvent as clientEvent } from '../../tcp/testing/client-connection.ts';
import { startFixture, tempDataDir, waitCaughtUp } from '../testing/fixture.ts';
import { startServeProcess, type ServeProcess } from '../../../testing/serve-process.ts';

/**
 * `homeport serve` is SIGKILLed at random moments while clients append and the standard projections
 * write their links. After the last restart every event of the `crash-*` streams has exactly one link
 * in `$ce-crash` and in `$et-Crash`, in log order, and every stream one entry in `$streams`.
 */

const ROUNDS = 4;
const WRITERS = 3;

describe('standard projections across SIGKILLs', () => {
  const dataDir = tempDataDir();
  let server: ServeProcess | null = null;

  afterAll(async () => {
    if (server) await server.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`no link missing and none twice after ${ROUNDS} kills`, async () => {
    const es = (await import('node-eventstore-client')).default;
    let appended = 0;
    for (let round = 0; round < ROUNDS; round++) {
      server = await startServeProcess({ dataDir });
      const conn = await connectClient(es, `tcp://127.0.0.1:${server.tcpPort}`, { maxReconnections: 0, maxRetries: 0 });
      conn.on('error', () => {});
      let stop = false;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const stream = `crash-${round}-${w}-${i % 4}`;
          const batch = Array.from({ length: 1 + crypto.randomInt(3) }, () =>
            clientEvent(es, 'Crash', { round, w, i }),
          );
          try {
            await conn.appendToStream(stream, es.expectedVersion.any, batch);
            appended += batch.length;
          } catch {
            return; // the kill
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
      // Kill while the projections are writing: once `$ce-crash` grew this round, within 0-200 ms.
      const admin = new es.UserCredentials('admin', 'changeit');
      const linksNow = async () => {
        const last = await conn.readStreamEventsBackward('$ce-crash', -1, 1, false, admin);
        return last.events.length === 0 ? -1 : last.events[0].event.eventNumber.toNumber();
      };
      const atStart = await linksNow();
      const deadline = Date.now() + 20_000;
      while ((await linksNow()) <= atStart + 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, crypto.randomInt(200)));
      await server.stop('SIGKILL');
      server = null;
      stop = true;
      conn.close();
      await Promise.all(writers);
    }
    expect(appended).toBeGreaterThan(0);

    const fx = await startFixture(dataDir);
    try {
      await waitCaughtUp(fx.projections!, fx.eventLog);
      const admin = { name: 'admin', groups: ['$admins'] };
      // The crash-* events in log order, as `N@stream`.
      const expected: string[] = [];
      const streamsSeen: string[] = [];
      let from = { commitPosition: 0, preparePosition: 0 };
      for (;;) {
        const page = fx.eventLog.store.readAllForward(from, 1000, false, admin);
        for (const { event } of page.events) {
          if (!event?.streamId.startsWith('crash-')) continue;
          expected.push(`${event.eventNumber}@${event.streamId}`);
          if (event.eventNumber === 0) streamsSeen.push(`0@${event.streamId}`);
        }
        if (page.events.length === 0) break;
        from = page.nextPosition;
      }
      const linksOf = (streamId: string) => {
        const out: string[] = [];
        let n = 0;
        for (;;) {
          const page = fx.eventLog.store.readStreamForward(streamId, n, 1000, false, admin);
          out.push(...page.events.map((e) => Buffer.from(e.event!.data).toString()));
          if (page.isEndOfStream) return out;
          n = page.nextEventNumber;
        }
      };
      expect(linksOf('$ce-crash')).toEqual(expected);
      expect(linksOf('$et-Crash')).toEqual(expected);
      expect(linksOf('$streams').filter((l) => l.includes('@crash-'))).toEqual(streamsSeen);
    } finally {
      await fx.stop();
    }
  }, 120_000);
});

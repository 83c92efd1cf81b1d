import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../testing/wait-for.ts';
import { seedBulk } from './testing/bulk.ts';
import { expectReplicated, snapshotOf } from './testing/content.ts';
import {
  removeTempDirs,
  serveHomeport,
  serveRestartable,
  startReplicator,
  tempDir,
  type ReplicatorProcess,
  type ServedHomeport,
} from './testing/serve.ts';

/**
 * Events copied: 100,000 in `npm run test:soak` (the replication requirement's count); 30,000 by default, which
 * still puts each kill several checkpoints (4,096 events) into the copy, at 15 %, 40 % and 70 % of it.
 */
const EVENTS = Number(process.env.HOMEPORT_REPLICATION_CRASH_EVENTS ?? 30_000);
const DEADLINE_MS = 600_000;
const at = (share: number) => Math.round(EVENTS * share);

/** The replicator passed `position` (its progress lines say so) and has not finished. */
async function reached(replicator: ReplicatorProcess, position: number): Promise<void> {
  let exited = false;
  replicator.exitCode.then(() => (exited = true));
  await waitFor(() => replicator.position() >= position || exited, `replication past ${position}`, DEADLINE_MS);
  expect(exited, replicator.output()).toBe(false);
}

describe.each(['tcp', 'grpc'] as const)(
  'exactly once over %s: SIGKILL of the replicator, the target, the source',
  (protocol) => {
    const processes: { kill(): Promise<void> }[] = [];
    afterAll(async () => {
      for (const p of processes) await p.kill();
      removeTempDirs();
    });

    it(
      `copies ${EVENTS.toLocaleString('en-US')} events with no gap and no duplicate`,
      async () => {
        const sourceDir = tempDir(`crash-src-${protocol}`);
        await seedBulk(sourceDir, { events: EVENTS });
        let source = await serveRestartable(sourceDir);
        let target = await serveRestartable(tempDir(`crash-dst-${protocol}`));
        processes.push({ kill: () => source.kill() }, { kill: () => target.kill() });
        const url = (s: ServedHomeport) => (protocol === 'tcp' ? s.tcpUrl : s.grpcUrl);
        const args = ['--from', url(source), '--to', url(target), '--name', 'crash'];

        let replicator = startReplicator(args);
        processes.push({ kill: async () => void replicator.child.kill('SIGKILL') });
        await reached(replicator, at(0.15));
        replicator.child.kill('SIGKILL');
        await replicator.exitCode;

        replicator = startReplicator(args);
        await reached(replicator, at(0.4));
        await target.kill();
        target = await serveHomeport(target.dataDir, { tcp: target.tcpPort, grpc: target.grpcPort });

        await reached(replicator, at(0.7));
        await source.kill();
        source = await serveHomeport(sourceDir, { tcp: source.tcpPort, grpc: source.grpcPort });

        expect(await replicator.exitCode, replicator.output()).toBe(0);
        expect(replicator.output()).toMatch(/connection lost/);
        const copied = await snapshotOf(target);
        const expected = await snapshotOf(source);
        expect(expected.events.length).toBeGreaterThanOrEqual(EVENTS);
        const ids = copied.events.map((e) => e.eventId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual(expected.events.map((e) => e.eventId));
        expectReplicated(copied, expected);
        // The checkpoint reached the end of the source.
        const summary = /^replicated: .*checkpoint at (\d+)\//m.exec(replicator.output());
        expect(Number(summary?.[1])).toBeGreaterThanOrEqual(EVENTS);
      },
      DEADLINE_MS,
    );
  },
);

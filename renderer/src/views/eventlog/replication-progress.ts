import type { UiReplication } from '../../api/types.ts';

/** How far the position is towards the head, 0-100, from the commit positions ("commit/prepare"). */
export function percentDone(r: UiReplication): number | null {
  const p = r.progress;
  if (r.state === 'finished' || p?.phase === 'live') return 100;
  if (!p || p.phase === 'connecting') return null;
  // An empty source is copied as soon as it is reached; nothing handled yet is the start.
  if (!p.head) return 100;
  if (!p.position) return 0;
  const position = BigInt(p.position.split('/')[0]);
  const head = BigInt(p.head.split('/')[0]);
  if (head <= 0n) return 100;
  return Math.min(100, Number((position * 1000n) / head) / 10);
}

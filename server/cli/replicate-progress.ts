/** The lines `homeport eventlog replicate` prints: a progress bar while catching up, the lag once live, a summary. */
import type { LogPosition, ReplicationProgress, ReplicationSummary } from '../eventlog/index.ts';

const BAR_WIDTH = 20;
const count = (n: number) => n.toLocaleString('en-US');

function position(p: LogPosition | null): string {
  return p ? `${p.commit}/${p.prepare}` : 'start';
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

function bar(p: ReplicationProgress): string {
  if (!p.head || !p.position || p.head.commit <= 0n) return '';
  const fraction = Math.min(1, Number(p.position.commit) / Number(p.head.commit));
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% `;
}

export function formatProgress(p: ReplicationProgress): string {
  const totals = `${count(p.handled)} events read, ${count(p.copied)} written, ${count(p.eventsPerSecond)}/s`;
  switch (p.phase) {
    case 'connecting':
      return 'connecting…';
    case 'retrying':
      return `connection lost (${p.error ?? 'unknown error'}); retrying from the checkpoint at ${position(p.position)}`;
    case 'live':
      return `live: ${totals}, position ${position(p.position)}${p.lagMs !== null ? `, lag ${count(p.lagMs)} ms` : ''}`;
    default:
      return `${bar(p)}${totals}, position ${position(p.position)}${p.etaSeconds !== null ? `, ETA ${duration(p.etaSeconds)}` : ''}`;
  }
}

export function formatSummary(s: ReplicationSummary): string {
  const rate = s.seconds > 0 ? Math.round(s.handled / s.seconds) : 0;
  return (
    `replicated: ${count(s.copied)} events written to the target, ${count(s.handled)} source events read ` +
    `in ${duration(s.seconds)} (${count(rate)}/s), ${s.retries} reconnection(s); checkpoint at ${position(s.position)}`
  );
}

/**
 * The read rows' rounds (bench/eventlog-append/reads.ts): each row runs several times, the scenarios taking turns,
 * and shows its median round beside the spread, since one round of the same row moved by 10 points between quiet runs.
 */
import type { ReadCeiling } from './sqlite-ceiling.ts';

/** What a round's rows need here. */
interface RoundRow {
  eventsPerSec: number;
  serverCpuUs?: number;
}

/** One round of a read scenario: the ceiling measured right before, the real readers' row, the framing readers'. */
export interface ReadRound<R extends RoundRow = RoundRow> {
  ceiling: ReadCeiling;
  row: R;
  framed: R;
}

const percent = (rate: number, ceiling: number) => Math.round((rate / ceiling) * 100);

/** "rounds: 70–79 % (frame-only 75–96 %), ceiling 240,000–301,000 events/s": how far the rounds spread. */
export function spread(rounds: ReadRound[]): string {
  const range = (values: number[], unit: string) => {
    const sorted = [...values].sort((a, b) => a - b);
    const f = (v: number) => Math.round(v).toLocaleString('en-US');
    return `${f(sorted[0])}–${f(sorted[sorted.length - 1])}${unit}`;
  };
  return [
    `${rounds.length} rounds: ${range(
      rounds.map((r) => percent(r.row.eventsPerSec, r.ceiling.perSecond)),
      ' %',
    )} (frame-only ${range(
      rounds.map((r) => percent(r.framed.eventsPerSec, r.ceiling.perSecond)),
      ' %',
    )})`,
    `ceiling ${range(
      rounds.map((r) => r.ceiling.perSecond),
      ' events/s',
    )}`,
    `server CPU ${rounds.map((r) => (r.row.serverCpuUs! / r.ceiling.cpuUs).toFixed(2)).join(' / ')}× the select`,
  ].join(', ');
}

/** The round whose real readers came out in the middle (by share of their ceiling). */
export function medianRound<R extends RoundRow>(rounds: ReadRound<R>[]): ReadRound<R> {
  const sorted = [...rounds].sort(
    (a, b) => a.row.eventsPerSec / a.ceiling.perSecond - b.row.eventsPerSec / b.ceiling.perSecond,
  );
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

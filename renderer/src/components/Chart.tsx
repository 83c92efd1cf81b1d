import { useId, useState, type PointerEvent } from 'react';

/** Points of a line chart: time (ms) and value. */
export interface ChartPoint {
  at: number;
  value: number;
}

const WIDTH = 480;
const HEIGHT = 150;
const LEFT = 56;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 22;
/** A gap longer than this between samples (the server was down) breaks the line rather than bridging it. */
const GAP_MS = 5000;

/** The smallest of 1, 2, 2.5, 5 × 10^n at or above `v`: round numbers for the top of the value axis. */
export function niceCeiling(v: number): number {
  if (v <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= v) return step * power;
  return 10 * power;
}

const clock = (at: number, seconds: boolean) =>
  new Date(at).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: seconds ? '2-digit' : undefined,
  });

/**
 * A line chart of a value over the last minutes, hand-drawn SVG (no chart library for three small charts):
 * a value axis with its unit from 0 to a round number above the peak, a time axis in clock times, and the
 * value at any moment under the pointer. Where there are no samples nothing is drawn (no false zero); the
 * current value and the peak are text for everyone and the image's accessible name for screen readers.
 */
export function LineChart({
  title,
  points,
  windowMs,
  end,
  format,
}: {
  title: string;
  points: ChartPoint[];
  windowMs: number;
  /** The chart's right edge (ms): the same for every chart on a page, so they line up. */
  end: number;
  format: (v: number) => string;
}) {
  const id = useId();
  const [hover, setHover] = useState<ChartPoint | null>(null);
  const start = end - windowMs;
  const shown = points.filter((p) => p.at > start && p.at <= end);
  const peak = Math.max(0, ...shown.map((p) => p.value));
  const top = niceCeiling(peak);
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const x = (at: number) => LEFT + ((at - start) / windowMs) * plotW;
  const y = (v: number) => TOP + plotH - (v / top) * plotH;
  // One path, broken where samples are missing.
  let path = '';
  shown.forEach((p, i) => {
    const joined = i > 0 && p.at - shown[i - 1].at <= GAP_MS;
    path += `${joined ? 'L' : 'M'}${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`;
  });
  const latest = shown[shown.length - 1];
  // A last sample older than a few seconds is not "now" (the page lost the server): no current value then.
  const current = latest && end - latest.at <= GAP_MS ? latest.value : null;
  const minutes = Math.round(windowMs / 60000);
  const summary =
    shown.length === 0
      ? `${title}: no samples yet`
      : `${title}: ${current === null ? 'no current value' : `${format(current)} now`}, peak ${format(peak)} in the last ${minutes} minutes`;
  const seconds = windowMs <= 10 * 60000;
  const onMove = (e: PointerEvent<SVGSVGElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const at = start + (((e.clientX - box.left) / box.width) * WIDTH - LEFT) * (windowMs / plotW);
    let best: ChartPoint | null = null;
    for (const p of shown) if (!best || Math.abs(p.at - at) < Math.abs(best.at - at)) best = p;
    setHover(best && Math.abs(best.at - at) <= GAP_MS ? best : null);
  };
  return (
    <figure className="chart" aria-labelledby={id}>
      <figcaption id={id}>
        <span>{title}</span> <strong data-testid="chart-current">{current === null ? '–' : format(current)}</strong>{' '}
        <span className="muted">peak {format(peak)}</span>
        <span className="chart-hover" data-testid="chart-hover" aria-hidden="true">
          {hover ? `${clock(hover.at, true)}: ${format(hover.value)}` : ''}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width={WIDTH}
        height={HEIGHT}
        role="img"
        aria-label={summary}
        onPointerMove={onMove}
        onPointerLeave={() => setHover(null)}
      >
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(top * f)} y2={y(top * f)} className="chart-grid" />
            <text x={LEFT - 4} y={y(top * f) + 4} textAnchor="end" className="chart-label">
              {format(top * f)}
            </text>
          </g>
        ))}
        {[0, 0.5, 1].map((f) => (
          <text
            key={f}
            x={LEFT + f * plotW}
            y={HEIGHT - 6}
            textAnchor={f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}
            className="chart-label"
          >
            {clock(start + f * windowMs, seconds)}
          </text>
        ))}
        <line x1={LEFT} x2={LEFT} y1={TOP} y2={TOP + plotH} className="chart-axis" />
        <line x1={LEFT} x2={WIDTH - RIGHT} y1={TOP + plotH} y2={TOP + plotH} className="chart-axis" />
        {path && <path d={path} className="chart-line" fill="none" />}
        {hover && (
          <g className="chart-cursor">
            <line x1={x(hover.at)} x2={x(hover.at)} y1={TOP} y2={TOP + plotH} />
            <circle cx={x(hover.at)} cy={y(hover.value)} r={3} />
          </g>
        )}
      </svg>
    </figure>
  );
}

import { useId } from 'react';

/** Points of a line chart: time (ms) and value. */
export interface ChartPoint {
  at: number;
  value: number;
}

const WIDTH = 320;
const HEIGHT = 64;

/**
 * A small live line chart, hand-drawn SVG (no chart library for two lines): the last minutes of a value,
 * scaled to its highest point, with the current value and the peak as text for everyone (and as the
 * image's accessible name for screen readers).
 */
export function LineChart({
  title,
  points,
  windowMs,
  format,
}: {
  title: string;
  points: ChartPoint[];
  windowMs: number;
  format: (v: number) => string;
}) {
  const id = useId();
  const now = points.length ? points[points.length - 1].at : Date.now();
  const peak = Math.max(0, ...points.map((p) => p.value));
  const scale = peak > 0 ? peak : 1;
  const x = (at: number) => WIDTH - ((now - at) / windowMs) * WIDTH;
  const y = (v: number) => HEIGHT - 2 - (v / scale) * (HEIGHT - 4);
  const line = points.map((p) => `${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const current = points.length ? points[points.length - 1].value : null;
  const summary =
    current === null
      ? `${title}: no samples yet`
      : `${title}: ${format(current)} now, peak ${format(peak)} in the last ${Math.round(windowMs / 60000)} minutes`;
  return (
    <figure className="chart" aria-labelledby={id}>
      <figcaption id={id}>
        <span>{title}</span> <strong data-testid="chart-current">{current === null ? '–' : format(current)}</strong>{' '}
        <span className="muted">peak {format(peak)}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width={WIDTH}
        height={HEIGHT}
        role="img"
        aria-label={summary}
        preserveAspectRatio="none"
      >
        <line x1="0" x2={WIDTH} y1={HEIGHT - 1} y2={HEIGHT - 1} className="chart-axis" />
        {points.length > 1 && <polyline points={line} className="chart-line" fill="none" />}
      </svg>
    </figure>
  );
}

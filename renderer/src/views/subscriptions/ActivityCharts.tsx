import { useState } from 'react';
import { LineChart } from '../../components/Chart.tsx';
import { formatNumber, formatRate } from '../../components/ui.tsx';
import type { ActivitySample } from '../../stores/monitor.ts';

const WINDOWS: [number, string][] = [
  [5 * 60_000, '5 minutes'],
  [15 * 60_000, '15 minutes'],
  [60 * 60_000, '1 hour'],
];

/**
 * Events written and delivered per second, and each persistent group's lag, over the last 5 minutes to an
 * hour: the server keeps the samples, so the charts are full as soon as the page opens.
 */
export function ActivityCharts({ activity, groups = true }: { activity: ActivitySample[]; groups?: boolean }) {
  const [windowMs, setWindowMs] = useState(WINDOWS[0][0]);
  const label = WINDOWS.find(([ms]) => ms === windowMs)![1];
  const end = activity.length ? activity[activity.length - 1].at : Date.now();
  const lagKeys = groups ? [...new Set(activity.flatMap((a) => Object.keys(a.lag)))].sort() : [];
  return (
    <div className="charts-block">
      <div className="toolbar" role="group" aria-label="Chart period">
        {WINDOWS.map(([ms, name]) => (
          <button key={ms} type="button" aria-pressed={ms === windowMs} onClick={() => setWindowMs(ms)}>
            {name}
          </button>
        ))}
      </div>
      <div className="charts" aria-label={`Activity over the last ${label}`} role="group">
        <LineChart
          title="Events written"
          points={activity.map((a) => ({ at: a.at, value: a.writtenPerSecond }))}
          windowMs={windowMs}
          end={end}
          format={(v) => formatRate(v)}
        />
        <LineChart
          title="Deliveries"
          points={activity.map((a) => ({ at: a.at, value: a.deliveredPerSecond }))}
          windowMs={windowMs}
          end={end}
          format={(v) => formatRate(v)}
        />
        {lagKeys.map((key) => (
          <LineChart
            key={key}
            title={`Lag of ${key}`}
            points={activity.filter((a) => key in a.lag).map((a) => ({ at: a.at, value: a.lag[key] }))}
            windowMs={windowMs}
            end={end}
            format={(v) => `${formatNumber(v)} behind`}
          />
        ))}
      </div>
    </div>
  );
}

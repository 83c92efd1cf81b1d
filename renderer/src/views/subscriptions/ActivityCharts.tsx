import { LineChart } from '../../components/Chart.tsx';
import { formatNumber, formatRate } from '../../components/ui.tsx';
import { ACTIVITY_WINDOW_MS, type ActivitySample } from '../../stores/monitor.ts';

/** Events written and delivered per second, and each persistent group's lag, over the last minutes. */
export function ActivityCharts({ activity, groups = true }: { activity: ActivitySample[]; groups?: boolean }) {
  const lagKeys = groups ? [...new Set(activity.flatMap((a) => Object.keys(a.lag)))].sort() : [];
  return (
    <div className="charts" aria-label="Activity over the last five minutes" role="group">
      <LineChart
        title="Events written"
        points={activity.map((a) => ({ at: a.at, value: a.writtenPerSecond }))}
        windowMs={ACTIVITY_WINDOW_MS}
        format={(v) => formatRate(v)}
      />
      <LineChart
        title="Deliveries"
        points={activity.map((a) => ({ at: a.at, value: a.deliveredPerSecond }))}
        windowMs={ACTIVITY_WINDOW_MS}
        format={(v) => formatRate(v)}
      />
      {lagKeys.map((key) => (
        <LineChart
          key={key}
          title={`Lag of ${key}`}
          points={activity.filter((a) => key in a.lag).map((a) => ({ at: a.at, value: a.lag[key] }))}
          windowMs={ACTIVITY_WINDOW_MS}
          format={(v) => `${formatNumber(v)} behind`}
        />
      ))}
    </div>
  );
}

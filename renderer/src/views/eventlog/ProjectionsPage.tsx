import { useRef } from 'react';
import type { UiProjectionSummary } from '../../api/types.ts';
import {
  Badge,
  Empty,
  ErrorState,
  formatNumber,
  formatRate,
  Link,
  Loading,
  Notice,
  numeric,
  TableHead,
} from '../../components/ui.tsx';
import { routePath } from '../../stores/router.ts';
import { EventLogTabs } from './EventLogTabs.tsx';
import { statusTone, usePolled } from './projections-api.ts';

interface ListAnswer {
  projections: UiProjectionSummary[];
  mode: string;
}

/** Events per second per projection, from the change in events processed between two refreshes (as EventStoreDB's UI). */
function useRates(list: UiProjectionSummary[] | undefined, at: number): Map<string, number | null> {
  const previous = useRef<{ at: number; counts: Map<string, number> } | null>(null);
  const rates = useRef<{ at: number; rates: Map<string, number | null> }>({ at: 0, rates: new Map() });
  if (list && at !== rates.current.at) {
    const prev = previous.current;
    const next = new Map<string, number | null>();
    for (const p of list) {
      const before = prev?.counts.get(p.name);
      const seconds = prev ? (at - prev.at) / 1000 : 0;
      next.set(
        p.name,
        before === undefined || seconds <= 0 ? null : Math.max(0, (p.eventsProcessedAfterRestart - before) / seconds),
      );
    }
    previous.current = { at, counts: new Map(list.map((p) => [p.name, p.eventsProcessedAfterRestart])) };
    rates.current = { at, rates: next };
  }
  return rates.current.rates;
}

const COLUMNS = [
  'Name',
  'Status',
  'Mode',
  numeric('Done'),
  'Position',
  numeric('Rate'),
  numeric('Events processed'),
  numeric('Partitions'),
] as const;

/** Every projection (the standard `$` ones and yours) with status, position and rate, refreshed while open. */
export function ProjectionsPage() {
  const { data, error, reload, loadedAt } = usePolled<ListAnswer>('/eventlog/projections');
  const rates = useRates(data?.projections, loadedAt);
  return (
    <section aria-labelledby="projections-title" className="view">
      <div className="view-header">
        <h1 id="projections-title">Event log</h1>
        <div className="actions">
          <Link className="button primary" to={routePath('eventlog', ['new-projection'])}>
            New projection
          </Link>
        </div>
      </div>
      <EventLogTabs current="projections" />
      {data?.mode === 'system' && (
        <Notice>Only the standard projections run (--run-projections system): yours are kept but stopped.</Notice>
      )}
      {error && !data ? (
        <ErrorState message={error} onRetry={() => void reload()} />
      ) : !data ? (
        <Loading />
      ) : data.projections.length === 0 ? (
        <Empty>No projections.</Empty>
      ) : (
        <table className="table" aria-label="Projections">
          <TableHead columns={COLUMNS} />
          <tbody>
            {data.projections.map((p) => (
              <tr key={p.name} data-testid="projection-row">
                <th scope="row" className="stream-cell">
                  <Link to={routePath('eventlog', ['projections', p.name])}>{p.name}</Link>
                  {p.stateReason && (
                    <div className="form-error" data-testid="projection-reason">
                      {p.stateReason.split('\r\n')[0]}
                    </div>
                  )}
                </th>
                <td>
                  <Badge tone={statusTone(p.status)}>{p.status}</Badge>
                </td>
                <td>{p.mode}</td>
                <td className="num">{p.progress < 0 ? '–' : `${p.progress.toFixed(1)}%`}</td>
                <td className="mono">{p.position || '–'}</td>
                <td className="num">{formatRate(rates.get(p.name) ?? null)}</td>
                <td className="num">{formatNumber(p.eventsProcessedAfterRestart)}</td>
                <td className="num">{formatNumber(p.partitionsCached)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {error && data && <Notice kind="warn">Refreshing failed: {error}</Notice>}
    </section>
  );
}

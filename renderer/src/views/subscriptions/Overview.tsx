import { useEffect } from 'react';
import { streamPath } from '../../components/EventTable.tsx';
import {
  Badge,
  Empty,
  ErrorState,
  formatAge,
  formatBytes,
  formatDuration,
  formatNumber,
  formatRate,
  formatTime,
  Link,
  Loading,
  Notice,
  numeric,
  TableHead,
} from '../../components/ui.tsx';
import { groupsByStream, useMonitor, type GroupRow } from '../../stores/monitor.ts';
import { routePath } from '../../stores/router.ts';
import { ActivityCharts } from './ActivityCharts.tsx';

export const groupRoute = (stream: string, group: string, ...more: string[]) =>
  routePath('subscriptions', ['groups', stream, group, ...more]);

export function statusTone(status: string): 'good' | 'warn' | 'bad' | 'neutral' {
  const s = status.toLowerCase();
  if (s.includes('live')) return 'good';
  if (s.includes('behind') || s.includes('catch') || s.includes('start') || s.includes('idle')) return 'warn';
  if (s.includes('drop') || s.includes('fault') || s.includes('stop')) return 'bad';
  return 'neutral';
}

/** "caught up", an estimate, or "not moving" for a group that is behind with no consumers working. */
export function catchUpText(behind: number | null, seconds: number | null): string {
  if (behind === null) return '';
  if (behind === 0) return 'caught up';
  return seconds === null ? 'not moving' : `catch-up ≈ ${formatDuration(seconds)}`;
}

function GroupTable({ stream, groups }: { stream: string; groups: GroupRow[] }) {
  return (
    <table className="table groups" aria-label={`Groups on ${stream}`}>
      <TableHead
        columns={[
          'Group',
          'Status',
          numeric('Rate'),
          numeric('Last checkpoint'),
          numeric('Last known'),
          numeric('Behind'),
          numeric('Catch-up'),
          numeric('In flight'),
          numeric('Parked'),
          numeric('Connections'),
        ]}
      />
      <tbody>
        {groups.map((g) => (
          <tr key={g.group} data-testid={`group-row-${g.stream}::${g.group}`}>
            <th scope="row">
              <Link to={groupRoute(g.stream, g.group)} aria-label={`Group ${g.group} on ${g.stream}`}>
                {g.group}
              </Link>
            </th>
            <td>
              <Badge tone={statusTone(g.status)}>{g.status}</Badge>
            </td>
            <td className="num" data-testid="group-rate">
              {formatRate(g.averagePerSecond)}
            </td>
            <td className="num">{formatNumber(g.lastCheckpointedEventNumber)}</td>
            <td className="num">{formatNumber(g.lastKnownEventNumber)}</td>
            <td className="num">{formatNumber(g.behind)}</td>
            <td className="num nowrap">{catchUpText(g.behind, g.catchUpSeconds) || '–'}</td>
            <td className="num">{formatNumber(g.inFlight)}</td>
            <td className="num" data-testid="group-parked">
              {g.parkedCount > 0 ? <Badge tone="warn">{formatNumber(g.parkedCount)}</Badge> : '0'}
            </td>
            <td className="num">{formatNumber(g.connectionCount)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Connected TCP clients, live (volatile) subscriptions and persistent groups, refreshed every second. */
export function SubscriptionsOverview() {
  const m = useMonitor();
  useEffect(() => useMonitor.getState().watch(1000), []);

  const firstLoad = m.groups === null && m.connections === null;
  return (
    <section aria-labelledby="subscriptions-title" className="view">
      <div className="view-header">
        <h1 id="subscriptions-title">Subscriptions</h1>
        <Link className="button primary" to={routePath('subscriptions', ['new'])}>
          New persistent group
        </Link>
      </div>
      <p className="muted" aria-live="off">
        Updated every second{m.updatedAt ? `; last update ${new Date(m.updatedAt).toLocaleTimeString()}` : ''}.
      </p>
      {m.error && !firstLoad && <Notice kind="error">Could not refresh: {m.error}</Notice>}
      <ActivityCharts activity={m.activity} />
      {!m.available && (
        <Notice kind="warn">
          The subscription service is not running yet; persistent groups and live subscriptions appear once it is.
        </Notice>
      )}

      {firstLoad && m.error ? (
        <ErrorState message={m.error} onRetry={() => void m.refresh()} />
      ) : firstLoad ? (
        <Loading />
      ) : (
        <>
          <section aria-labelledby="groups-title">
            <h2 id="groups-title">Persistent subscriptions</h2>
            {m.groups?.length ? (
              groupsByStream(m.groups).map(({ stream, groups }) => (
                <div key={stream} className="group-block">
                  <h3>
                    <Link to={streamPath(stream)}>{stream}</Link>{' '}
                    <span className="muted">
                      ({groups.length} {groups.length === 1 ? 'group' : 'groups'})
                    </span>
                  </h3>
                  <GroupTable stream={stream} groups={groups} />
                </div>
              ))
            ) : (
              <Empty>
                <p>No persistent subscription groups.</p>
                <p>
                  <Link to={routePath('subscriptions', ['new'])}>Create one</Link>, or let a client create it over TCP.
                </p>
              </Empty>
            )}
          </section>

          <section aria-labelledby="connections-title">
            <h2 id="connections-title">Connected clients</h2>
            {m.connections?.length ? (
              <table className="table" aria-label="Connected clients">
                <TableHead
                  columns={[
                    'Connection',
                    'Address',
                    'User',
                    'Connected',
                    numeric('Received'),
                    numeric('Sent'),
                    numeric('Pending send'),
                  ]}
                />
                <tbody>
                  {m.connections.map((c) => (
                    <tr key={c.id}>
                      <th scope="row" className="stream-cell">
                        {c.connectionName || <span className="muted">(unnamed)</span>} {c.tls && <Badge>TLS</Badge>}
                      </th>
                      <td>
                        <code>{c.remoteAddress}</code>
                      </td>
                      <td>{c.user ?? <span className="muted">anonymous</span>}</td>
                      <td className="nowrap" title={formatTime(c.connectedAt)}>
                        {formatAge(c.connectedAt)} ago
                      </td>
                      <td className="num nowrap">
                        {formatBytes(c.bytesReceived)}{' '}
                        <span className="muted">
                          ({c.receiveRate === null ? '–' : `${formatBytes(Math.round(c.receiveRate))}/s`})
                        </span>
                      </td>
                      <td className="num nowrap">
                        {formatBytes(c.bytesSent)}{' '}
                        <span className="muted">
                          ({c.sendRate === null ? '–' : `${formatBytes(Math.round(c.sendRate))}/s`})
                        </span>
                      </td>
                      <td className="num nowrap">
                        {formatNumber(c.pendingSendPackages)}{' '}
                        <span className="muted">({formatBytes(c.pendingSendBytes)})</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty>
                No TCP clients are connected. The Server view has connection strings to paste into a client.
              </Empty>
            )}
          </section>

          <section aria-labelledby="volatile-title">
            <h2 id="volatile-title">Live subscriptions</h2>
            {m.volatile?.length ? (
              <table className="table" aria-label="Live subscriptions">
                <TableHead columns={['Stream', 'Filter', 'Client', 'User', numeric('Delivered'), 'Since']} />
                <tbody>
                  {m.volatile.map((v) => (
                    <tr key={v.id}>
                      <td className="stream-cell">
                        {v.stream === '$all' ? (
                          <Link to={routePath('eventlog', ['all'])}>$all</Link>
                        ) : (
                          <Link to={streamPath(v.stream)}>{v.stream}</Link>
                        )}
                      </td>
                      <td>{v.filter ? <code>{v.filter}</code> : <span className="muted">none</span>}</td>
                      <td>{v.connectionName || <span className="muted">(unnamed)</span>}</td>
                      <td>{v.user ?? <span className="muted">anonymous</span>}</td>
                      <td className="num">{formatNumber(v.delivered)}</td>
                      <td className="nowrap">{formatAge(v.subscribedAt)} ago</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty>No live subscriptions.</Empty>
            )}
          </section>
        </>
      )}
    </section>
  );
}

import { useEffect, useState } from 'react';
import type { UiGroupSettings } from '../../api/types.ts';
import { EventTable, streamPath } from '../../components/EventTable.tsx';
import {
  Badge,
  Dialog,
  Empty,
  ErrorState,
  formatNumber,
  formatRate,
  FormFooter,
  Link,
  Loading,
  Notice,
  numeric,
  Pager,
  TableHead,
} from '../../components/ui.tsx';
import { useGroup } from '../../stores/group.ts';
import { groupRow } from '../../stores/monitor.ts';
import { routePath, useRouter } from '../../stores/router.ts';
import { pageMoves } from '../../stores/stream.ts';
import { catchUpText, groupRoute, statusTone } from './Overview.tsx';

export const SETTING_LABELS: Record<keyof UiGroupSettings, { label: string; help: string; unit?: string }> = {
  startFrom: {
    label: 'Start from',
    help: 'First event number when there is no checkpoint; -1 means only events written after the group starts',
  },
  resolveLinkTos: { label: 'Resolve links', help: 'Deliver the target of $> link events instead of the link' },
  consumerStrategy: { label: 'Consumer strategy', help: 'How events are shared between connected consumers' },
  messageTimeoutMs: {
    label: 'Message timeout',
    help: 'An event not acknowledged within this time is retried (0 = never)',
    unit: 'ms',
  },
  maxRetryCount: { label: 'Max retry count', help: 'Retries before an event is parked' },
  checkpointAfterMs: { label: 'Checkpoint after', help: 'Write a checkpoint at most this often', unit: 'ms' },
  minCheckpointCount: { label: 'Min checkpoint count', help: 'Processed events needed before a timed checkpoint' },
  maxCheckpointCount: { label: 'Max checkpoint count', help: 'Checkpoint as soon as this many are processed' },
  maxSubscriberCount: { label: 'Max subscribers', help: 'Consumers allowed at once (0 = no limit)' },
  liveBufferSize: { label: 'Live buffer size', help: 'Live events held before falling back to reading' },
  readBatchSize: { label: 'Read batch size', help: 'Events read per page while catching up' },
  historyBufferSize: { label: 'History buffer size', help: 'Events buffered while catching up' },
  extraStatistics: { label: 'Extra statistics', help: 'Record timing statistics' },
};

function settingValue(key: keyof UiGroupSettings, v: UiGroupSettings[keyof UiGroupSettings]): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (key === 'startFrom' && v === -1) return '-1 (only new events)';
  if (key === 'maxSubscriberCount' && v === 0) return 'no limit';
  if (key === 'messageTimeoutMs' && v === 0) return 'never';
  const unit = SETTING_LABELS[key].unit;
  return `${typeof v === 'number' ? v.toLocaleString() : v}${unit ? ` ${unit}` : ''}`;
}

const PARKED_TITLES = {
  first: 'oldest parked messages',
  previous: 'older',
  next: 'newer',
  last: 'newest parked messages',
} as const;

/** One persistent group: statistics (live), every setting, consumers, parked messages with replay, edit and delete. */
export function GroupPage({ stream, group }: { stream: string; group: string }) {
  const g = useGroup();
  const navigate = useRouter((r) => r.navigate);
  const [replaying, setReplaying] = useState(false);
  const [stopAt, setStopAt] = useState('');
  const [replayAll, setReplayAll] = useState(true);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    void useGroup.getState().open(stream, group);
    const stop = useGroup.getState().watch(1000);
    return () => {
      stop();
      useGroup.setState({ key: null });
    };
  }, [stream, group]);

  const d = g.detail ? groupRow(g.detail) : null;
  const moves = pageMoves(g.parked, g.parkedCursor);

  const replay = async () => {
    setBusy(true);
    setActionError(null);
    const n = replayAll ? null : Number(stopAt);
    if (n !== null && (!Number.isSafeInteger(n) || n < 1)) {
      setActionError('Enter how many parked messages to replay (a whole number ≥ 1).');
      setBusy(false);
      return;
    }
    try {
      const replayed = await g.replay(n);
      setReplaying(false);
      setNotice(
        replayed === null
          ? 'Replay started.'
          : `Replayed ${replayed} parked ${replayed === 1 ? 'message' : 'messages'}.`,
      );
    } catch (err) {
      setActionError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setBusy(true);
    setActionError(null);
    try {
      await g.remove();
      navigate(routePath('subscriptions'));
    } catch (err) {
      setActionError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="group-title" className="view">
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link to={routePath('subscriptions')}>Subscriptions</Link> <span aria-hidden="true">›</span>{' '}
        <Link to={streamPath(stream)}>{stream}</Link> <span aria-hidden="true">›</span> <span>{group}</span>
      </nav>
      <div className="view-header">
        <h1 id="group-title">
          Group {group} <span className="muted">on</span> <span className="stream-name">{stream}</span>
        </h1>
        <div className="actions">
          {d ? (
            <Link className="button" to={groupRoute(stream, group, 'edit')}>
              Edit settings
            </Link>
          ) : (
            <button type="button" disabled>
              Edit settings
            </button>
          )}
          <button
            type="button"
            onClick={() => {
              setActionError(null);
              setReplaying(true);
            }}
            disabled={!d}
          >
            Replay parked messages…
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              setActionError(null);
              setDeleting(true);
            }}
            disabled={!d}
          >
            Delete group…
          </button>
        </div>
      </div>
      {notice && <Notice>{notice}</Notice>}

      {g.error && !d ? (
        <ErrorState message={g.error} onRetry={() => void g.refresh()} />
      ) : !d ? (
        <Loading />
      ) : (
        <>
          {g.error && <Notice kind="error">Could not refresh: {g.error}</Notice>}
          <section aria-labelledby="stats-title">
            <h2 id="stats-title">Statistics</h2>
            <dl className="stats" aria-label="Group statistics">
              <div>
                <dt>Status</dt>
                <dd>
                  <Badge tone={statusTone(d.status)}>{d.status}</Badge>
                </dd>
              </div>
              <div>
                <dt>Rate</dt>
                <dd data-testid="detail-rate">{formatRate(d.averagePerSecond, ' events/s')}</dd>
              </div>
              <div>
                <dt>Processed</dt>
                <dd data-testid="detail-total">{formatNumber(d.totalItemsProcessed)}</dd>
              </div>
              <div>
                <dt>Delivered</dt>
                <dd>{formatNumber(d.totalItemsDelivered)}</dd>
              </div>
              <div>
                <dt>Last checkpoint</dt>
                <dd>{formatNumber(d.lastCheckpointedEventNumber)}</dd>
              </div>
              <div>
                <dt>Last processed</dt>
                <dd>{formatNumber(d.lastProcessedEventNumber)}</dd>
              </div>
              <div>
                <dt>Last known event</dt>
                <dd>{formatNumber(d.lastKnownEventNumber)}</dd>
              </div>
              <div>
                <dt>Behind</dt>
                <dd>
                  {formatNumber(d.behind)} <span className="muted">{catchUpText(d.behind, d.catchUpSeconds)}</span>
                </dd>
              </div>
              <div>
                <dt>In flight</dt>
                <dd>{formatNumber(d.inFlight)}</dd>
              </div>
              <div>
                <dt>Parked</dt>
                <dd data-testid="detail-parked">{formatNumber(d.parkedCount)}</dd>
              </div>
              <div>
                <dt>Outstanding</dt>
                <dd>{formatNumber(d.outstandingMessagesCount)}</dd>
              </div>
              <div>
                <dt>Buffers (read / live / retry)</dt>
                <dd>
                  {formatNumber(d.readBufferCount)} / {formatNumber(d.liveBufferCount)} /{' '}
                  {formatNumber(d.retryBufferCount)}
                </dd>
              </div>
            </dl>
          </section>

          <section aria-labelledby="consumers-title">
            <h2 id="consumers-title">Connected consumers</h2>
            {d.connections.length ? (
              <table className="table" aria-label="Connected consumers">
                <TableHead
                  columns={[
                    'Connection',
                    'From',
                    'User',
                    numeric('Rate'),
                    numeric('Delivered'),
                    numeric('Acked'),
                    numeric('In flight'),
                    numeric('Free slots'),
                  ]}
                />
                <tbody>
                  {d.connections.map((c) => (
                    <tr key={c.id}>
                      <th scope="row">{c.connectionName || <span className="muted">(unnamed)</span>}</th>
                      <td>
                        <code>{c.from}</code>
                      </td>
                      <td>{c.user ?? <span className="muted">anonymous</span>}</td>
                      <td className="num">{formatRate(c.averagePerSecond)}</td>
                      <td className="num">{formatNumber(c.delivered)}</td>
                      <td className="num">{formatNumber(c.acked)}</td>
                      <td className="num">{formatNumber(c.inFlight)}</td>
                      <td className="num">{formatNumber(c.availableSlots)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <Empty>No consumer is connected to this group.</Empty>
            )}
          </section>

          <section aria-labelledby="settings-title">
            <h2 id="settings-title">Settings</h2>
            <dl className="facts" aria-label="Group settings">
              {(Object.keys(SETTING_LABELS) as (keyof UiGroupSettings)[]).map((k) => (
                <div key={k} className="fact-row">
                  <dt title={SETTING_LABELS[k].help}>{SETTING_LABELS[k].label}</dt>
                  <dd>{settingValue(k, d.settings[k])}</dd>
                </div>
              ))}
            </dl>
          </section>

          <section aria-labelledby="parked-title">
            <div className="section-header">
              <h2 id="parked-title">Parked messages</h2>
              <span className="muted">
                stream{' '}
                <Link
                  to={streamPath(`$persistentsubscription-${stream}::${group}-parked`)}
                >{`$persistentsubscription-${stream}::${group}-parked`}</Link>
              </span>
            </div>
            <div className="table-toolbar">
              <Pager
                label="Parked message pages"
                onMove={(m) => moves[m] && void g.loadParked(moves[m]!)}
                can={moves}
                titles={PARKED_TITLES}
              />
              <button type="button" onClick={g.expandAllParked} disabled={!g.parked?.events.length}>
                Expand all
              </button>
              <button type="button" onClick={g.collapseAllParked} disabled={!Object.keys(g.parkedExpanded).length}>
                Collapse all
              </button>
              <button type="button" onClick={() => void g.loadParked()}>
                Refresh
              </button>
            </div>
            {g.parkedError ? (
              <ErrorState message={g.parkedError} onRetry={() => void g.loadParked()} />
            ) : !g.parked ? (
              <Loading />
            ) : !g.parked.events.length ? (
              <Empty>No parked messages.</Empty>
            ) : (
              <EventTable
                label="Parked messages"
                events={g.parked.events}
                keyOf={(e) => String(e.eventNumber)}
                expanded={g.parkedExpanded}
                onToggle={(k) => g.toggleParked(Number(k))}
              />
            )}
          </section>
        </>
      )}

      <Dialog open={replaying} title="Replay parked messages" onClose={() => setReplaying(false)}>
        <p>
          Parked messages are delivered to the group's consumers again, oldest first.{' '}
          {d ? `${formatNumber(d.parkedCount)} are parked now.` : ''}
        </p>
        <fieldset className="choices">
          <legend>How many</legend>
          <label className="choice">
            <input type="radio" name="replay-count" checked={replayAll} onChange={() => setReplayAll(true)} /> All
            parked messages
          </label>
          <label className="choice">
            <input type="radio" name="replay-count" checked={!replayAll} onChange={() => setReplayAll(false)} /> Only
            the oldest
            <input
              aria-label="Number of parked messages to replay"
              inputMode="numeric"
              value={stopAt}
              onChange={(e) => setStopAt(e.target.value)}
              onFocus={() => setReplayAll(false)}
              size={6}
            />
          </label>
        </fieldset>
        <FormFooter error={actionError} onCancel={() => setReplaying(false)}>
          <button type="button" className="primary" disabled={busy} onClick={() => void replay()}>
            {busy ? 'Replaying…' : 'Replay'}
          </button>
        </FormFooter>
      </Dialog>
      <Dialog open={deleting} title={`Delete group ${group}`} onClose={() => setDeleting(false)}>
        <p>
          Deleting <strong>{group}</strong> disconnects its {d ? formatNumber(d.connectionCount) : ''} consumers, and
          removes its checkpoint and its {d ? formatNumber(d.parkedCount) : ''} parked messages. The events in{' '}
          <code>{stream}</code> are not touched.
        </p>
        <FormFooter error={actionError} onCancel={() => setDeleting(false)}>
          <button type="button" className="danger" disabled={busy} onClick={() => void remove()}>
            {busy ? 'Deleting…' : 'Delete group'}
          </button>
        </FormFooter>
      </Dialog>
    </section>
  );
}

import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import type { UiReplication } from '../../api/types.ts';
import {
  Badge,
  Empty,
  ErrorState,
  Field,
  FormFooter,
  formatDuration,
  formatNumber,
  formatTime,
  Loading,
  Notice,
  useAction,
} from '../../components/ui.tsx';
import { EventLogTabs } from './EventLogTabs.tsx';
import { percentDone } from './replication-progress.ts';

const POLL_MS = 1000;

/** Replications this server runs, refreshed every second while the page is open. */
function useReplications() {
  const [replications, setReplications] = useState<UiReplication[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const { replications } = await api<{ replications: UiReplication[] }>('/eventlog/replications');
      setReplications(replications);
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, []);
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [load]);
  return { replications, error, load };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const TEXT_FIELDS = [
  {
    label: 'Other server’s address',
    help: 'tcp://user@host:1113 (TCP, add ?tls=true for TLS) or kurrentdb://user@host:2113 (gRPC). Link-local and cloud metadata addresses are refused.',
    placeholder: 'tcp://admin@127.0.0.1:1113',
  },
  { label: 'Password', help: 'Of the user the address names; sent once, never shown or kept.', placeholder: '' },
  { label: 'Stream prefixes', help: 'Comma separated; empty copies every stream.', placeholder: 'order-, customer-' },
  { label: 'Event type prefixes', help: 'Comma separated; empty copies every type.', placeholder: 'Order' },
] as const;
type TextField = (typeof TEXT_FIELDS)[number]['label'];

function StartForm({ onStarted }: { onStarted: () => Promise<void> }) {
  const [direction, setDirection] = useState<'into' | 'from'>('into');
  const [texts, setTexts] = useState<Record<TextField, string>>(
    Object.fromEntries(TEXT_FIELDS.map((f) => [f.label, ''])) as Record<TextField, string>,
  );
  const address = texts['Other server’s address'];
  const password = texts.Password;
  const [continuous, setContinuous] = useState(false);
  const [intoExisting, setIntoExisting] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setStarted(null);
    if (!address.trim()) return setError('Give the other server’s address');
    const remote = address.trim();
    await run(async () => {
      const job = await api<UiReplication>('/eventlog/replications', {
        method: 'POST',
        body: {
          from: direction === 'into' ? remote : 'local',
          to: direction === 'into' ? 'local' : remote,
          ...(password ? { password } : {}),
          continuous,
          intoExisting,
          streamPrefixes: list(texts['Stream prefixes']),
          eventTypePrefixes: list(texts['Event type prefixes']),
        },
      });
      // The password is not kept on the page once it has been used.
      setTexts((t) => ({ ...t, Password: '' }));
      setStarted(`Started: ${job.from} → ${job.to}.`);
      await onStarted();
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-labelledby="replication-start-title">
      <h2 id="replication-start-title">Start a replication</h2>
      <fieldset className="choices">
        <legend>Direction</legend>
        <label className="choice">
          <input type="radio" name="direction" checked={direction === 'into'} onChange={() => setDirection('into')} />{' '}
          Bring a store home: from another server into this Homeport
        </label>
        <label className="choice">
          <input type="radio" name="direction" checked={direction === 'from'} onChange={() => setDirection('from')} />{' '}
          Send this Homeport’s log to another server (a KurrentDB cluster)
        </label>
      </fieldset>
      <div className="form-grid">
        {TEXT_FIELDS.map((f) => (
          <Field key={f.label} label={f.label} help={f.help}>
            {(p) => (
              <input
                {...p}
                type={f.label === 'Password' ? 'password' : 'text'}
                value={texts[f.label]}
                onChange={(e) => setTexts({ ...texts, [f.label]: e.target.value })}
                placeholder={f.placeholder}
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
        ))}
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={continuous} onChange={(e) => setContinuous(e.target.checked)} /> Continuous:
        after catching up, follow new events until stopped
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={intoExisting} onChange={(e) => setIntoExisting(e.target.checked)} /> Into a
        store that already holds events (otherwise a non-empty target is refused)
      </label>
      {started && <Notice>{started}</Notice>}
      <FormFooter error={error}>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Starting…' : 'Start replication'}
        </button>
      </FormFooter>
    </form>
  );
}

const PHASES: Record<string, string> = {
  connecting: 'Connecting',
  'catching-up': 'Catching up',
  live: 'Live',
  retrying: 'Retrying',
  done: 'Done',
};

function ReplicationCard({ r, onStop }: { r: UiReplication; onStop: (id: string) => Promise<void> }) {
  const { busy, error, run } = useAction();
  const p = r.progress;
  const percent = percentDone(r);
  const title = `${r.from} → ${r.to}`;
  const titleId = `replication-${r.id}`;
  const tone = r.state === 'failed' ? 'bad' : r.state === 'running' ? 'good' : 'neutral';
  return (
    <article className="replication" aria-labelledby={titleId} data-testid="replication">
      <div className="section-header">
        <h3 id={titleId}>{title}</h3>
        <Badge tone={tone}>{r.state === 'running' && p ? PHASES[p.phase] : r.state}</Badge>
        {r.state === 'running' && (
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => void run(() => onStop(r.id))}
            aria-label={`Stop replication ${title}`}
          >
            {busy ? 'Stopping…' : 'Stop'}
          </button>
        )}
      </div>
      {r.state === 'running' && (
        <p>
          <progress max={100} {...(percent === null ? {} : { value: percent })} aria-label={`Progress of ${title}`} />{' '}
          <span data-testid="replication-percent">{percent === null ? '…' : `${percent.toFixed(1)}%`}</span>
        </p>
      )}
      <dl className="facts inline" aria-label={`Figures of ${title}`}>
        <dt>Started</dt>
        <dd>{formatTime(r.startedAt)}</dd>
        <dt>Mode</dt>
        <dd>{r.continuous ? 'continuous' : 'once'}</dd>
        {p && r.state === 'running' && (
          <>
            <dt>Events/s</dt>
            <dd data-testid="replication-rate">{formatNumber(p.eventsPerSecond)}</dd>
            <dt>Handled</dt>
            <dd>{formatNumber(p.handled)}</dd>
            <dt>Copied</dt>
            <dd>{formatNumber(p.copied)}</dd>
            <dt>Position</dt>
            <dd>
              <code>{p.position ?? 'start'}</code> of <code>{p.head ?? 'empty'}</code>
            </dd>
            <dt>{p.phase === 'live' ? 'Lag' : 'Time to catch up'}</dt>
            <dd data-testid="replication-eta">
              {p.phase === 'live'
                ? p.lagMs === null
                  ? 'no new events yet'
                  : `${formatNumber(p.lagMs)} ms`
                : formatDuration(p.etaSeconds)}
            </dd>
          </>
        )}
      </dl>
      {p?.error && r.state === 'running' && <Notice kind="warn">Retrying after: {p.error}</Notice>}
      {r.summary && r.state !== 'running' && (
        <p data-testid="replication-summary" role="status">
          {r.state === 'stopped' ? 'Stopped' : 'Finished'}: {formatNumber(r.summary.handled)} events looked at,{' '}
          {formatNumber(r.summary.copied)} copied in {formatDuration(r.summary.seconds)}
          {r.summary.retries > 0 ? ` after ${formatNumber(r.summary.retries)} retries` : ''}; position{' '}
          <code>{r.summary.position ?? 'start'}</code>.
        </p>
      )}
      {r.error && <Notice kind="error">Failed: {r.error}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
    </article>
  );
}

/**
 * Replication: copy another event store into this Homeport (or this one into another server) over the TCP or
 * gRPC protocol, once or continuously, with its progress live and a summary at the end.
 */
export function ReplicationPage() {
  const { replications, error, load } = useReplications();
  const stop = async (id: string) => {
    await api(`/eventlog/replications/${encodeURIComponent(id)}`, { method: 'DELETE' });
    await load();
  };
  const newestFirst = [...(replications ?? [])].sort((a, b) => b.startedAt - a.startedAt);
  return (
    <section aria-labelledby="replication-title" className="view">
      <EventLogTabs current="replication" />
      <div className="view-header">
        <h1 id="replication-title">Replication</h1>
      </div>
      <p className="muted">
        Copies every event in order with its id, type, data and metadata, stream metadata and deletions, exactly once
        across crashes (a checkpoint on the target). The same as <code>homeport eventlog replicate</code>.
      </p>
      <StartForm onStarted={load} />
      <section aria-labelledby="replications-title">
        <h2 id="replications-title">Replications</h2>
        {error && replications === null ? (
          <ErrorState message={error} onRetry={() => void load()} />
        ) : replications === null ? (
          <Loading />
        ) : newestFirst.length === 0 ? (
          <Empty>No replication has run since the server started.</Empty>
        ) : (
          newestFirst.map((r) => <ReplicationCard key={r.id} r={r} onStop={stop} />)
        )}
      </section>
    </section>
  );
}

import { useEffect, useState } from 'react';
import { api } from '../../api/client.ts';
import type { UiProjectionDetail, UiProjectionState } from '../../api/types.ts';
import { PayloadView } from '../../components/JsonView.tsx';
import {
  Badge,
  Dialog,
  ErrorState,
  FormError,
  FormFooter,
  formatNumber,
  Link,
  Loading,
  Notice,
  useAction,
} from '../../components/ui.tsx';
import { routePath, useRouter } from '../../stores/router.ts';
import { EventLogTabs } from './EventLogTabs.tsx';
import { ProjectionConfigDialog } from './ProjectionConfigDialog.tsx';
import { projectionApi, statusTone, usePolled } from './projections-api.ts';

type Command = 'enable' | 'disable' | 'abort' | 'reset';

const COMMANDS: { command: Command; label: string; help: string }[] = [
  { command: 'enable', label: 'Start', help: 'Runs it from its last checkpoint.' },
  { command: 'disable', label: 'Stop', help: 'Stops it after writing a checkpoint.' },
  { command: 'abort', label: 'Abort', help: 'Stops it without a checkpoint.' },
  { command: 'reset', label: 'Reset', help: 'Starts it over from the beginning (a new epoch).' },
];

/** The query editor: the page's width, monospace (a textarea keeps it keyboard- and screen-reader-friendly). */
const EDITOR = { width: '100%', fontFamily: 'var(--mono)' } as const;
const PRE_WRAP = { whiteSpace: 'pre-wrap', margin: 0 } as const;

const text = (payload: string) => ({
  text: payload,
  encoding: 'utf8' as const,
  bytes: payload.length,
  truncated: false,
});

/** One partition's state and result, refreshed with the page. */
function StateView({ name, partitions }: { name: string; partitions: string[] }) {
  const [partition, setPartition] = useState('');
  const { data, error } = usePolled<UiProjectionState>(
    projectionApi(name, `/state${partition ? `?partition=${encodeURIComponent(partition)}` : ''}`),
  );
  const choices = partitions.filter((p) => p !== '');
  return (
    <section aria-labelledby="projection-state-title">
      <h2 id="projection-state-title">State and result</h2>
      <label className="inline-label">
        Partition{' '}
        <input
          list="projection-partitions"
          value={partition}
          onChange={(e) => setPartition(e.target.value)}
          placeholder="(root)"
        />
        <datalist id="projection-partitions">
          {choices.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
      </label>
      {choices.length > 0 && (
        <p className="muted">
          {formatNumber(choices.length)} {choices.length === 1 ? 'partition' : 'partitions'}
          {choices.length >= 1000 ? ' (the first 1,000)' : ''}.
        </p>
      )}
      {error ? (
        <FormError message={error} />
      ) : !data ? (
        <Loading />
      ) : (
        <div className="form-grid">
          <div data-testid="projection-state">
            {data.state === null ? (
              <p className="muted">(no state)</p>
            ) : (
              <PayloadView title="State" payload={text(data.state)} copyLabel="Copy the state" />
            )}
          </div>
          <div data-testid="projection-result">
            {data.result === null ? (
              <p className="muted">(no result)</p>
            ) : (
              <PayloadView title="Result" payload={text(data.result)} copyLabel="Copy the result" />
            )}
          </div>
        </div>
      )}
    </section>
  );
}

/** One projection: status and statistics, its query (editable), state and result per partition, the commands. */
export function ProjectionPage({ name }: { name: string }) {
  const navigate = useRouter((r) => r.navigate);
  const { data: p, error, reload } = usePolled<UiProjectionDetail>(projectionApi(name));
  const [draft, setDraft] = useState<string | null>(null);
  const [emit, setEmit] = useState<boolean | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [configuring, setConfiguring] = useState(false);
  const [flags, setFlags] = useState({
    deleteCheckpointStream: true,
    deleteStateStream: true,
    deleteEmittedStreams: false,
  });
  const commands = useAction();
  const save = useAction();
  const remove = useAction();
  useEffect(() => {
    setDraft(null);
    setEmit(null);
  }, [name]);

  if (error && !p) return <ErrorState message={error} onRetry={() => void reload()} />;
  if (!p) return <Loading />;

  const query = draft ?? p.query;
  const changed = draft !== null && draft !== p.query;
  const run = (command: Command) =>
    void commands.run(async () => {
      await api(projectionApi(name, `/command/${command}`), { method: 'POST' });
      await reload();
    });
  const saveQuery = () =>
    void save.run(async () => {
      await api(projectionApi(name, '/query'), {
        method: 'PUT',
        body: { query, ...(emit === null ? {} : { emit }) },
      });
      setDraft(null);
      setEmit(null);
      await reload();
    });
  const stats: [string, string][] = [
    ['Mode', p.mode],
    ['Progress', p.progress < 0 ? '–' : `${p.progress.toFixed(1)}%`],
    ['Events processed', formatNumber(p.eventsProcessedAfterRestart)],
    ['Partitions cached', formatNumber(p.partitionsCached)],
    ['Position', p.position || '–'],
    ['Last checkpoint', p.lastCheckpoint || '–'],
    ['Emit', p.emitEnabled ? `enabled${p.trackEmittedStreams ? ', streams tracked' : ''}` : 'disabled'],
    ['Checkpoints', p.checkpointsEnabled ? 'on' : 'off'],
    ['Epoch / version', `${p.epoch} / ${p.version}`],
    ['Handler', p.handlerType],
  ];

  return (
    <section aria-labelledby="projection-title" className="view">
      <div className="view-header">
        <h1 id="projection-title">
          Projection {p.name}{' '}
          <Badge tone={statusTone(p.status)}>
            <span data-testid="projection-status">{p.status}</span>
          </Badge>
        </h1>
        <div className="actions">
          <Link className="button" to={routePath('eventlog', ['projections'])}>
            All projections
          </Link>
        </div>
      </div>
      <EventLogTabs current="projections" />
      {p.stateReason && (
        <Notice kind="error">
          <pre className="mono" style={PRE_WRAP} data-testid="projection-fault">
            {p.stateReason}
          </pre>
        </Notice>
      )}
      <div className="toolbar" role="group" aria-label="Commands">
        {COMMANDS.map((c) => (
          <button key={c.command} type="button" title={c.help} onClick={() => run(c.command)} disabled={commands.busy}>
            {c.label}
          </button>
        ))}
        {!p.system && (
          <button type="button" onClick={() => setConfiguring(true)}>
            Configuration…
          </button>
        )}
        {!p.system && (
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete…
          </button>
        )}
        {p.resultStream && <Link to={routePath('eventlog', ['streams', p.resultStream])}>Result stream</Link>}
      </div>
      <FormError message={commands.error} />

      <section aria-labelledby="projection-stats-title">
        <h2 id="projection-stats-title">Statistics</h2>
        <dl className="facts" data-testid="projection-stats">
          {stats.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section aria-labelledby="projection-query-title">
        <h2 id="projection-query-title">Query</h2>
        <label>
          <span className="visually-hidden">Query of {p.name}</span>
          <textarea
            style={EDITOR}
            value={query}
            onChange={(e) => setDraft(e.target.value)}
            rows={Math.min(30, Math.max(8, query.split('\n').length + 1))}
            spellCheck={false}
            readOnly={p.system}
          />
        </label>
        {!p.system && (
          <div className="toolbar">
            <label className="choice">
              <input type="checkbox" checked={emit ?? p.emitEnabled} onChange={(e) => setEmit(e.target.checked)} /> Emit
              enabled
            </label>
            <button
              type="button"
              className="primary"
              onClick={saveQuery}
              disabled={save.busy || (!changed && (emit === null || emit === p.emitEnabled))}
            >
              {save.busy ? 'Saving…' : 'Save query'}
            </button>
            {changed && (
              <button type="button" onClick={() => setDraft(null)}>
                Discard changes
              </button>
            )}
          </div>
        )}
        <FormError message={save.error} />
      </section>

      <StateView name={p.name} partitions={p.partitions} />

      <ProjectionConfigDialog
        name={p.name}
        running={p.status.startsWith('Running')}
        open={configuring}
        onClose={() => setConfiguring(false)}
        onSaved={reload}
      />

      <Dialog open={deleting} title={`Delete projection ${p.name}`} onClose={() => setDeleting(false)}>
        <p>A running projection cannot be deleted: stop it first.</p>
        <fieldset className="choices">
          <legend>Also delete</legend>
          {(
            [
              ['deleteCheckpointStream', 'Its checkpoint stream'],
              ['deleteStateStream', 'Its state stream'],
              ['deleteEmittedStreams', 'The streams it emitted to (when tracked)'],
            ] as const
          ).map(([k, label]) => (
            <label key={k} className="choice">
              <input
                type="checkbox"
                checked={flags[k]}
                onChange={(e) => setFlags({ ...flags, [k]: e.target.checked })}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <FormFooter error={remove.error} onCancel={() => setDeleting(false)}>
          <button
            type="button"
            className="danger"
            disabled={remove.busy}
            onClick={() =>
              void remove.run(async () => {
                await api(projectionApi(name), { method: 'DELETE', body: flags });
                setDeleting(false);
                navigate(routePath('eventlog', ['projections']), { replace: true });
              })
            }
          >
            Delete
          </button>
        </FormFooter>
      </Dialog>
    </section>
  );
}

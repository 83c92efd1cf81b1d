import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import type { UiProjectionSummary } from '../../api/types.ts';
import { FormFooter, Link, useAction } from '../../components/ui.tsx';
import { routePath, useRouter } from '../../stores/router.ts';
import { EventLogTabs } from './EventLogTabs.tsx';

const EXAMPLE = `fromCategory('order')
  .foreachStream()
  .when({
    $init: function () { return { count: 0 }; },
    $any: function (state, event) { state.count += 1; },
  })
  .outputState();
`;

/** A new JavaScript projection: name, mode, query and EventStoreDB's options; it starts at once unless told not to. */
export function NewProjectionPage() {
  const navigate = useRouter((r) => r.navigate);
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'Continuous' | 'OneTime'>('Continuous');
  const [query, setQuery] = useState(EXAMPLE);
  const [emit, setEmit] = useState(false);
  const [trackEmittedStreams, setTrack] = useState(false);
  const [checkpoints, setCheckpoints] = useState(false);
  const [enabled, setEnabled] = useState(true);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      action.setError('Give the projection a name.');
      return;
    }
    void action.run(async () => {
      const created = await api<UiProjectionSummary>('/eventlog/projections', {
        method: 'POST',
        body: {
          name: name.trim(),
          mode,
          query,
          emit,
          trackEmittedStreams: emit && trackEmittedStreams,
          enabled,
          ...(mode === 'OneTime' ? { checkpoints } : {}),
        },
      });
      navigate(routePath('eventlog', ['projections', created.name]));
    });
  };
  return (
    <section aria-labelledby="new-projection-title" className="view">
      <div className="view-header">
        <h1 id="new-projection-title">New projection</h1>
      </div>
      <EventLogTabs current="projections" />
      <form className="form" onSubmit={submit} noValidate>
        <div className="form-grid">
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} required autoFocus maxLength={200} />
          </label>
          <label>
            Mode
            <select value={mode} onChange={(e) => setMode(e.target.value as 'Continuous' | 'OneTime')}>
              <option value="Continuous">Continuous (runs on, with checkpoints)</option>
              <option value="OneTime">One-time (stops at the end of the log)</option>
            </select>
          </label>
        </div>
        <label>
          Query (JavaScript)
          <textarea
            style={{ width: '100%', fontFamily: 'var(--mono)' }}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            rows={16}
            spellCheck={false}
          />
        </label>
        <fieldset className="choices">
          <legend>Options</legend>
          <label className="choice">
            <input type="checkbox" checked={emit} onChange={(e) => setEmit(e.target.checked)} /> Emit enabled (emit and
            linkTo may write events)
          </label>
          <label className="choice">
            <input
              type="checkbox"
              checked={trackEmittedStreams}
              disabled={!emit}
              onChange={(e) => setTrack(e.target.checked)}
            />{' '}
            Track emitted streams (so deleting the projection can delete them)
          </label>
          {mode === 'OneTime' && (
            <label className="choice">
              <input type="checkbox" checked={checkpoints} onChange={(e) => setCheckpoints(e.target.checked)} />{' '}
              Checkpoints
            </label>
          )}
          <label className="choice">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Start it now
          </label>
        </fieldset>
        <FormFooter error={action.error}>
          <Link className="button" to={routePath('eventlog', ['projections'])}>
            Cancel
          </Link>
          <button type="submit" className="primary" disabled={action.busy}>
            {action.busy ? 'Creating…' : 'Create'}
          </button>
        </FormFooter>
      </form>
    </section>
  );
}

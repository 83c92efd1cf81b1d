import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import type { UiGroupDetail, UiGroupSettings } from '../../api/types.ts';
import { ErrorState, Field, FormFooter, Link, Loading } from '../../components/ui.tsx';
import { createGroup, DEFAULT_GROUP_SETTINGS, groupPath } from '../../stores/group.ts';
import { routePath, useRouter } from '../../stores/router.ts';
import { SETTING_LABELS } from './GroupPage.tsx';
import { groupRoute } from './Overview.tsx';

const STRATEGIES = [
  { id: 'RoundRobin', label: 'Round robin: take turns between consumers' },
  { id: 'DispatchToSingle', label: 'Dispatch to single: fill one consumer first' },
  { id: 'Pinned', label: 'Pinned: same source stream, same consumer' },
  { id: 'PinnedByCorrelation', label: 'Pinned by correlation id' },
];
const NUMBER_FIELDS = [
  'messageTimeoutMs',
  'maxRetryCount',
  'checkpointAfterMs',
  'minCheckpointCount',
  'maxCheckpointCount',
  'maxSubscriberCount',
  'liveBufferSize',
  'readBatchSize',
  'historyBufferSize',
] as const;

/** Create a group, or edit one's settings (saving restarts it from its checkpoint and reconnects its consumers). */
export function GroupFormPage({
  mode,
  stream: fixedStream,
  group: fixedGroup,
}: {
  mode: 'create' | 'edit';
  stream?: string;
  group?: string;
}) {
  const navigate = useRouter((r) => r.navigate);
  const query = useRouter((r) => r.query);
  const [stream, setStream] = useState(fixedStream ?? query.stream ?? '');
  const [group, setGroup] = useState(fixedGroup ?? '');
  const [settings, setSettings] = useState<UiGroupSettings>(DEFAULT_GROUP_SETTINGS);
  const [text, setText] = useState<Record<string, string>>(() =>
    Object.fromEntries(NUMBER_FIELDS.map((k) => [k, String(DEFAULT_GROUP_SETTINGS[k])])),
  );
  const [startKind, setStartKind] = useState<'beginning' | 'new' | 'number'>('beginning');
  const [startNumber, setStartNumber] = useState('0');
  const [loading, setLoading] = useState(mode === 'edit');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (mode !== 'edit' || !fixedStream || !fixedGroup) return;
    api<{ group: UiGroupDetail }>(groupPath(fixedStream, fixedGroup)).then(
      ({ group: g }) => {
        setSettings(g.settings);
        setText(Object.fromEntries(NUMBER_FIELDS.map((k) => [k, String(g.settings[k])])));
        setStartKind(g.settings.startFrom === -1 ? 'new' : g.settings.startFrom === 0 ? 'beginning' : 'number');
        setStartNumber(String(Math.max(0, g.settings.startFrom)));
        setLoading(false);
      },
      (err: Error) => {
        setLoadError(err.message);
        setLoading(false);
      },
    );
  }, [mode, fixedStream, fixedGroup]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const next: UiGroupSettings = { ...settings };
    for (const k of NUMBER_FIELDS) {
      const n = Number(text[k]);
      if (!text[k].trim() || !Number.isSafeInteger(n) || n < 0) {
        setError(`${SETTING_LABELS[k].label} must be a whole number ≥ 0`);
        return;
      }
      next[k] = n;
    }
    next.startFrom = startKind === 'new' ? -1 : startKind === 'beginning' ? 0 : Number(startNumber);
    if (!Number.isSafeInteger(next.startFrom) || next.startFrom < -1) {
      setError('Start from must be an event number');
      return;
    }
    if (mode === 'create' && (!stream.trim() || !group.trim())) {
      setError('A group needs a stream and a name');
      return;
    }
    setBusy(true);
    try {
      if (mode === 'create') {
        await createGroup(stream.trim(), group.trim(), next);
        navigate(groupRoute(stream.trim(), group.trim()));
      } else {
        await api(groupPath(fixedStream!, fixedGroup!), { method: 'PUT', body: next });
        navigate(groupRoute(fixedStream!, fixedGroup!));
      }
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  const title = mode === 'create' ? 'New persistent group' : `Edit group ${fixedGroup}`;
  return (
    <section aria-labelledby="group-form-title" className="view narrow">
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link to={routePath('subscriptions')}>Subscriptions</Link> <span aria-hidden="true">›</span>{' '}
        {mode === 'edit' && (
          <>
            <Link to={groupRoute(fixedStream!, fixedGroup!)}>{fixedGroup}</Link> <span aria-hidden="true">›</span>{' '}
          </>
        )}
        <span>{mode === 'create' ? 'New group' : 'Edit'}</span>
      </nav>
      <h1 id="group-form-title">{title}</h1>
      {loadError ? (
        <ErrorState message={loadError} />
      ) : loading ? (
        <Loading />
      ) : (
        <form className="form" onSubmit={submit} noValidate>
          {mode === 'edit' && (
            <p className="muted">
              Saving restarts the group from its last checkpoint; connected consumers are disconnected and reconnect.
            </p>
          )}
          <div className="form-grid">
            <label>
              Stream
              <input
                value={stream}
                onChange={(e) => setStream(e.target.value)}
                disabled={mode === 'edit'}
                placeholder="order-1234 or $ce-order"
                required
                autoFocus={mode === 'create'}
              />
            </label>
            <label>
              Group name
              <input
                value={group}
                onChange={(e) => setGroup(e.target.value)}
                disabled={mode === 'edit'}
                placeholder="billing"
                required
              />
            </label>
          </div>
          <fieldset className="choices">
            <legend>Start from (when the group has no checkpoint)</legend>
            <label className="choice">
              <input
                type="radio"
                name="start"
                checked={startKind === 'beginning'}
                onChange={() => setStartKind('beginning')}
              />{' '}
              The beginning of the stream
            </label>
            <label className="choice">
              <input type="radio" name="start" checked={startKind === 'new'} onChange={() => setStartKind('new')} />{' '}
              Only events written from now on
            </label>
            <label className="choice">
              <input
                type="radio"
                name="start"
                checked={startKind === 'number'}
                onChange={() => setStartKind('number')}
              />{' '}
              Event number
              <input
                aria-label="Start from event number"
                inputMode="numeric"
                value={startNumber}
                onChange={(e) => setStartNumber(e.target.value)}
                onFocus={() => setStartKind('number')}
                size={8}
              />
            </label>
          </fieldset>
          <label>
            Consumer strategy
            <select
              value={settings.consumerStrategy}
              onChange={(e) => setSettings({ ...settings, consumerStrategy: e.target.value })}
            >
              {STRATEGIES.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          <div className="form-grid">
            {NUMBER_FIELDS.map((k) => (
              <Field
                key={k}
                label={`${SETTING_LABELS[k].label}${SETTING_LABELS[k].unit ? ` (${SETTING_LABELS[k].unit})` : ''}`}
                help={SETTING_LABELS[k].help}
              >
                {(p) => (
                  <input
                    {...p}
                    inputMode="numeric"
                    value={text[k]}
                    onChange={(e) => setText({ ...text, [k]: e.target.value })}
                  />
                )}
              </Field>
            ))}
          </div>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={settings.resolveLinkTos}
              onChange={(e) => setSettings({ ...settings, resolveLinkTos: e.target.checked })}
            />{' '}
            Resolve links ($&gt; events deliver their target)
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={settings.extraStatistics}
              onChange={(e) => setSettings({ ...settings, extraStatistics: e.target.checked })}
            />{' '}
            Record extra statistics
          </label>
          <FormFooter error={error}>
            <Link
              className="button"
              to={mode === 'create' ? routePath('subscriptions') : groupRoute(fixedStream!, fixedGroup!)}
            >
              Cancel
            </Link>
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Saving…' : mode === 'create' ? 'Create group' : 'Save settings'}
            </button>
          </FormFooter>
        </form>
      )}
    </section>
  );
}

import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import type { UiProjectionConfig } from '../../api/types.ts';
import { Dialog, FormFooter, Loading, Notice, useAction } from '../../components/ui.tsx';
import { projectionApi } from './projections-api.ts';

type NumberKey = Exclude<keyof UiProjectionConfig, 'emitEnabled' | 'trackEmittedStreams'>;

/** EventStoreDB's Config dialog, field by field, with what each bounds. */
const NUMBERS: { key: NumberKey; label: string; min: number }[] = [
  { key: 'projectionExecutionTimeout', label: 'Handler timeout (ms per call)', min: 1 },
  { key: 'checkpointAfterMs', label: 'Checkpoint after (ms)', min: 0 },
  { key: 'checkpointHandledThreshold', label: 'Checkpoint every (events handled)', min: 0 },
  { key: 'checkpointUnhandledBytesThreshold', label: 'Checkpoint every (bytes read unhandled)', min: 0 },
  { key: 'pendingEventsThreshold', label: 'Pending events threshold', min: 0 },
  { key: 'maxWriteBatchLength', label: 'Largest write batch (events)', min: 0 },
  { key: 'maxAllowedWritesInFlight', label: 'Writes in flight (0: unbounded)', min: 0 },
];

/**
 * A projection's configuration (`GET`/`PUT …/config`): emit, tracking of emitted streams, checkpoint and write
 * thresholds, the handler timeout. Saved only while the projection is stopped or faulted, as EventStoreDB allows.
 */
export function ProjectionConfigDialog({
  name,
  running,
  open,
  onClose,
  onSaved,
}: {
  name: string;
  running: boolean;
  open: boolean;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const [config, setConfig] = useState<UiProjectionConfig | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const save = useAction();
  const { setError: setSaveError } = save;
  useEffect(() => {
    if (!open) return;
    let current = true;
    setConfig(null);
    setLoadError(null);
    setSaveError(null);
    api<UiProjectionConfig>(projectionApi(name, '/config')).then(
      (loaded) => current && setConfig(loaded),
      (err: Error) => current && setLoadError(err.message),
    );
    return () => {
      current = false;
    };
  }, [open, name, setSaveError]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!config) return;
    const bad = NUMBERS.find((n) => !Number.isInteger(config[n.key]) || config[n.key] < n.min);
    if (bad) {
      save.setError(`${bad.label}: a whole number of ${bad.min} or more.`);
      return;
    }
    void save.run(async () => {
      await api(projectionApi(name, '/config'), {
        method: 'PUT',
        body: { ...config, trackEmittedStreams: config.emitEnabled && config.trackEmittedStreams },
      });
      await onSaved();
      onClose();
    });
  };

  return (
    <Dialog open={open} title={`Configuration of ${name}`} onClose={onClose}>
      {running && <Notice kind="info">Stop the projection to change its configuration.</Notice>}
      {!config ? (
        loadError ? (
          <FormFooter error={loadError} onCancel={onClose}>
            {null}
          </FormFooter>
        ) : (
          <Loading />
        )
      ) : (
        <form className="form" onSubmit={submit} noValidate>
          <fieldset className="choices" disabled={running}>
            <legend>Output</legend>
            <label className="choice">
              <input
                type="checkbox"
                checked={config.emitEnabled}
                onChange={(e) => setConfig({ ...config, emitEnabled: e.target.checked })}
              />{' '}
              Emit enabled
            </label>
            <label className="choice">
              <input
                type="checkbox"
                checked={config.emitEnabled && config.trackEmittedStreams}
                disabled={!config.emitEnabled}
                onChange={(e) => setConfig({ ...config, trackEmittedStreams: e.target.checked })}
              />{' '}
              Track emitted streams
            </label>
          </fieldset>
          <div className="form-grid">
            {NUMBERS.map((n) => (
              <label key={n.key}>
                {n.label}
                <input
                  type="number"
                  min={n.min}
                  step={1}
                  inputMode="numeric"
                  value={Number.isNaN(config[n.key]) ? '' : config[n.key]}
                  disabled={running}
                  onChange={(e) => setConfig({ ...config, [n.key]: e.target.valueAsNumber })}
                />
              </label>
            ))}
          </div>
          <FormFooter error={save.error} onCancel={onClose}>
            <button type="submit" className="primary" disabled={running || save.busy}>
              {save.busy ? 'Saving…' : 'Save configuration'}
            </button>
          </FormFooter>
        </form>
      )}
    </Dialog>
  );
}

import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api/client.ts';
import { FormError, formatNumber, formatTime } from '../../components/ui.tsx';
import type { UiScavengeStatus } from '../../api/types.ts';

/**
 * Scavenge: removes for good the events no read can return any more (truncated, expired, deleted). Runs in
 * the background on the server; the section follows it until it ends and shows how the last one went.
 */
export function ScavengeSection() {
  const [status, setStatus] = useState<UiScavengeStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const load = useCallback(async () => {
    try {
      setStatus(await api<UiScavengeStatus>('/eventlog/scavenge'));
    } catch (err) {
      setError((err as Error).message);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  const running = status?.running ?? null;
  // Followed every second while one runs.
  useEffect(() => {
    if (!running && !starting) return;
    const timer = setInterval(() => void load(), 1000);
    return () => clearInterval(timer);
  }, [running, starting, load]);
  const start = async () => {
    setError(null);
    setStarting(true);
    try {
      await api('/eventlog/scavenge', { method: 'POST' });
      await load();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setStarting(false);
    }
  };
  const last = status?.last ?? null;
  return (
    <>
      <h2 id="scavenge-title">Scavenge</h2>
      <p className="muted">
        Removes for good the events no read can return any more: truncated, past their max count or age, or in deleted
        streams. Writes keep flowing while it runs.
      </p>
      <div className="toolbar">
        <button type="button" onClick={() => void start()} disabled={starting || running !== null}>
          {running ? 'Scavenging…' : 'Scavenge'}
        </button>
        {running && (
          <span role="status" data-testid="scavenge-running">
            {running.progress ? (
              <>
                <progress aria-label="Scavenge under way" max={100} value={running.progress.percent} />{' '}
                {running.progress.percent}%: {formatNumber(running.progress.streamsDone)} of{' '}
                {formatNumber(running.progress.streamsTotal)} streams, {formatNumber(running.progress.eventsRemoved)}{' '}
                events removed so far; running since {formatTime(running.startedAt)}
              </>
            ) : (
              <>
                <progress aria-label="Scavenge under way" /> Running since {formatTime(running.startedAt)}
              </>
            )}
          </span>
        )}
      </div>
      {last && (
        <p data-testid="scavenge-last" role={running ? undefined : 'status'}>
          Last scavenge {formatTime(last.completedAt)}: {last.result}, {formatNumber(last.eventsRemoved)}{' '}
          {last.eventsRemoved === 1 ? 'event' : 'events'} removed in {formatNumber(last.timeTakenMs)} ms
          {last.error ? ` (${last.error})` : ''}
        </p>
      )}
      <FormError message={error} />
    </>
  );
}

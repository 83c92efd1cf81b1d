import type { LiveStatus } from '../../api/live.ts';

const TEXT: Record<LiveStatus | 'off', string> = {
  off: 'Not live',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  denied: 'Live tail not allowed',
  closed: 'Not live',
};

/** Live-tail state and the pause/resume button. Pausing freezes the table; new events are counted meanwhile. */
export function LiveControl({
  live,
  paused,
  onPause,
  onResume,
}: {
  live: LiveStatus | 'off';
  paused: boolean;
  onPause: () => void;
  onResume: () => void;
}) {
  const state = paused ? 'paused' : live;
  return (
    <span className="live-control">
      <span className={`live-dot live-${state}`} aria-hidden="true" />
      <span role="status" aria-live="polite" data-testid="live-status">
        {paused ? 'Paused' : TEXT[live]}
      </span>
      {paused ? (
        <button type="button" onClick={onResume}>
          Resume live
        </button>
      ) : (
        <button type="button" onClick={onPause} disabled={live !== 'live'}>
          Pause live
        </button>
      )}
    </span>
  );
}

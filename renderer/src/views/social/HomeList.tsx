import { Fragment, useEffect, useRef, useState } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';
import { StatusItem, type Navigate } from './Status.tsx';

/**
 * The home timeline's posts, with a line where the user had read up to last time (the home marker) and the
 * older pages loaded as the end of the list comes into view (the Link header's next page), or on request.
 */
export function HomeList({ onOpen, onProfile }: Navigate) {
  const { home, homeOlder, homeReadUpTo, loadOlderHome } = useSocialClient();
  // The line goes above the first post already read, when newer ones sit above it.
  const firstRead = homeReadUpTo ? home.findIndex((s) => BigInt(s.id) <= BigInt(homeReadUpTo)) : -1;
  return (
    <>
      {home.map((s, i) => (
        <Fragment key={s.id}>
          {i === firstRead && i > 0 && (
            <p className="read-marker" role="separator" aria-label="Read up to here">
              You read up to here
            </p>
          )}
          <StatusItem status={s} onOpen={onOpen} onProfile={onProfile} />
        </Fragment>
      ))}
      {homeOlder ? <LoadOlder load={loadOlderHome} /> : home.length > 0 && <p className="muted">That is everything in your home timeline.</p>}
    </>
  );
}

/** Loads the next older page when it scrolls into view, and offers a button for keyboards and screen readers. */
function LoadOlder({ load }: { load: () => Promise<void> }) {
  const ref = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    load()
      .catch((err: Error) => setError(err.message))
      .finally(() => setBusy(false));
  };
  useEffect(() => {
    const button = ref.current;
    if (!button || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && run());
    observer.observe(button);
    return () => observer.disconnect();
  });
  return (
    <>
      <button ref={ref} type="button" className="load-older" onClick={run} disabled={busy}>
        {busy ? 'Loading older posts…' : 'Load older posts'}
      </button>
      <FormError message={error} />
    </>
  );
}

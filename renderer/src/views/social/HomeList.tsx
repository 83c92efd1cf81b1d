import { Fragment } from 'react';
import { useSocialClient } from '../../stores/social-client.ts';
import { LoadMore } from './paged-list.tsx';
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
      {homeOlder ? (
        <LoadMore load={loadOlderHome} label="Load older posts" />
      ) : (
        home.length > 0 && <p className="muted">That is everything in your home timeline.</p>
      )}
    </>
  );
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { Empty, FormError, Loading } from '../../components/ui.tsx';
import { useLiveTimeline, type LiveStream } from '../../stores/live-timeline.ts';
import { useSocialClient, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem, type Navigate } from './Status.tsx';

/**
 * A list read page by page, following the server's Link header: its items so far, whether the first page has
 * come, and `more` (null at the end) to read the next page.
 */
export function usePagedList<T>(path: string) {
  const { page } = useSocialClient();
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (from: string) => {
      setError(null);
      try {
        const result = await page<T>(from);
        setItems((list) => (from === path ? result.items : [...list, ...result.items]));
        setNext(result.items.length ? result.next : null);
        setLoaded(true);
      } catch (err) {
        setError((err as Error).message);
      }
    },
    [page, path],
  );
  useEffect(() => {
    void load(path);
  }, [load, path]);
  /** Puts newer items (that arrived live) on top, leaving out any already shown. */
  const prepend = useCallback(
    (newer: T[], idOf: (item: T) => string) =>
      setItems((list) => [...newer.filter((n) => !list.some((i) => idOf(i) === idOf(n))), ...list]),
    [],
  );
  return { items, loaded, error, more: next ? () => load(next) : null, reload: () => load(path), prepend };
}

/** The loading, error and "more" parts every paged list shows around its items. */
export function PagedListState({
  loaded,
  error,
  count,
  empty,
  more,
  moreLabel,
}: {
  loaded: boolean;
  error: string | null;
  count: number;
  empty: string;
  more: (() => void) | null;
  moreLabel: string;
}) {
  return (
    <>
      <FormError message={error} />
      {!loaded && !error && <Loading />}
      {loaded && count === 0 && <Empty>{empty}</Empty>}
      {more && <LoadMore load={more} label={moreLabel} />}
    </>
  );
}

/**
 * The next page, loaded as this button scrolls into view (infinite scroll), or when pressed (keyboards and
 * screen readers).
 */
export function LoadMore({ load, label }: { load: () => Promise<void> | void; label: string }) {
  const ref = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    Promise.resolve(load())
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
        {busy ? 'Loading…' : label}
      </button>
      <FormError message={error} />
    </>
  );
}

/**
 * Posts read page by page (a timeline, a profile's tab, a hashtag), with its loading, empty and error states;
 * `heading` shows the label as the list's heading.
 */
export function StatusPages({
  path,
  label,
  heading = false,
  empty,
  live = null,
  onOpen,
  onProfile,
}: { path: string; label: string; heading?: boolean; empty: string; live?: LiveStream | null } & Navigate) {
  const { items, loaded, error, more, prepend } = usePagedList<SocialStatus>(path);
  // Live timelines hold new posts behind a button, as home does, so the list never jumps while read.
  const { connected, incoming, deleted, take } = useLiveTimeline(live);
  const id = `${label.toLowerCase().replace(/\W+/g, '-')}-title`;
  const fresh = incoming.filter((s) => !items.some((i) => i.id === s.id));
  return (
    <section aria-labelledby={heading ? id : undefined} aria-label={heading ? undefined : label} aria-busy={!loaded}>
      {heading && <h2 id={id}>{label}</h2>}
      {live && <p className="muted">{connected ? 'live' : 'connecting…'}</p>}
      {fresh.length > 0 && (
        <button type="button" className="primary new-posts" onClick={() => prepend(take(), (s) => s.id)}>
          {fresh.length === 1 ? '1 new post' : `${fresh.length} new posts`}
        </button>
      )}
      {items
        .filter((s) => !deleted.has(s.id) && !(s.reblog && deleted.has(s.reblog.id)))
        .map((s) => (
          <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
        ))}
      <PagedListState
        loaded={loaded}
        error={error}
        count={items.length}
        empty={empty}
        more={more}
        moreLabel="Load older posts"
      />
    </section>
  );
}

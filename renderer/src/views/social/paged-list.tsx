import { useCallback, useEffect, useState } from 'react';
import { Empty, FormError, Loading } from '../../components/ui.tsx';
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
  return { items, loaded, error, more: next ? () => void load(next) : null, reload: () => load(path) };
}

/** The loading, error and "more" parts every paged list shows around its items. */
export function PagedListState({ loaded, error, count, empty, more, moreLabel }: { loaded: boolean; error: string | null; count: number; empty: string; more: (() => void) | null; moreLabel: string }) {
  return (
    <>
      <FormError message={error} />
      {!loaded && !error && <Loading />}
      {loaded && count === 0 && <Empty>{empty}</Empty>}
      {more && (
        <button type="button" onClick={more}>
          {moreLabel}
        </button>
      )}
    </>
  );
}

/**
 * Posts read page by page (a timeline, a profile's tab, a hashtag), with its loading, empty and error states;
 * `heading` shows the label as the list's heading.
 */
export function StatusPages({ path, label, heading = false, empty, onOpen, onProfile }: { path: string; label: string; heading?: boolean; empty: string } & Navigate) {
  const { items, loaded, error, more } = usePagedList<SocialStatus>(path);
  const id = `${label.toLowerCase().replace(/\W+/g, '-')}-title`;
  return (
    <section aria-labelledby={heading ? id : undefined} aria-label={heading ? undefined : label} aria-busy={!loaded}>
      {heading && <h2 id={id}>{label}</h2>}
      {items.map((s) => (
        <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
      ))}
      <PagedListState loaded={loaded} error={error} count={items.length} empty={empty} more={more} moreLabel="Load older posts" />
    </section>
  );
}

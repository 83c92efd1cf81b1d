import { useEffect, useState } from 'react';
import { FormError } from '../../components/ui.tsx';
import type { MastodonError } from '../../stores/social-client-state.ts';
import { useSocialClient } from '../../stores/social-client.ts';
import { PagedListState, StatusPages, usePagedList } from './paged-list.tsx';
import type { Navigate } from './Status.tsx';

interface Tag {
  name: string;
  following?: boolean;
  history?: { uses: string }[];
}

const tagPath = (name: string) => `/api/v1/tags/${encodeURIComponent(name)}`;

/** A hashtag's timeline, with following the hashtag (its posts then come to the home timeline). */
export function HashtagTimeline({ tag, onClose, onOpen, onProfile }: { tag: string; onClose: () => void } & Navigate) {
  const { request } = useSocialClient();
  const [info, setInfo] = useState<Tag | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request<Tag>(tagPath(tag))
      .then(setInfo)
      // A hashtag no post has used yet is unknown to the server; following it makes it known.
      .catch((err: MastodonError) =>
        err.status === 404 ? setInfo({ name: tag, following: false }) : setError(err.message),
      );
  }, [request, tag]);
  const following = info?.following === true;
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      setInfo(await request<Tag>(`${tagPath(tag)}/${following ? 'unfollow' : 'follow'}`, { method: 'POST' }));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="hashtag-title">
      <button type="button" onClick={onClose}>
        Back
      </button>
      <h2 id="hashtag-title">#{info?.name ?? tag}</h2>
      <p className="toolbar">
        {info?.history && (
          <span className="muted">{info.history.reduce((n, d) => n + Number(d.uses), 0)} posts this week</span>
        )}
        <button
          type="button"
          className={following ? '' : 'primary'}
          disabled={!info || busy}
          onClick={() => void toggle()}
        >
          {following ? `Unfollow #${tag}` : `Follow #${tag}`}
        </button>
      </p>
      <FormError message={error} />
      <StatusPages
        key={tag}
        path={`/api/v1/timelines/tag/${encodeURIComponent(tag)}?limit=20`}
        label={`Posts tagged #${tag}`}
        live={{ stream: 'hashtag', tag }}
        empty="No posts with this hashtag yet."
        onOpen={onOpen}
        onProfile={onProfile}
      />
    </section>
  );
}

/** The hashtags one follows (Mastodon's followed_tags), each opening its timeline, with the way back. */
export function FollowedHashtags({ onTag }: { onTag: (name: string) => void }) {
  const { request } = useSocialClient();
  const { items, loaded, error, more, reload } = usePagedList<Tag>('/api/v1/followed_tags?limit=40');
  const [failure, setFailure] = useState<string | null>(null);
  const unfollow = (name: string) =>
    request(`${tagPath(name)}/unfollow`, { method: 'POST' })
      .then(reload)
      .catch((err: Error) => setFailure(err.message));
  return (
    <section aria-labelledby="followed-tags-title">
      <h2 id="followed-tags-title">Followed hashtags</h2>
      <p className="muted">Posts with a hashtag you follow come to your home timeline.</p>
      {items.length > 0 && (
        <ul className="accounts" aria-label="Followed hashtags">
          {items.map((t) => (
            <li key={t.name}>
              <button type="button" className="link" onClick={() => onTag(t.name)}>
                #{t.name}
              </button>{' '}
              <button type="button" aria-label={`Unfollow #${t.name}`} onClick={() => void unfollow(t.name)}>
                Unfollow
              </button>
            </li>
          ))}
        </ul>
      )}
      <PagedListState
        loaded={loaded}
        error={error ?? failure}
        count={items.length}
        empty="You follow no hashtags: open one (from a post or a search) and follow it."
        more={more}
        moreLabel="Load more"
      />
    </section>
  );
}

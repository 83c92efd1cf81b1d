import { useCallback, useEffect, useState } from 'react';
import { Empty, FormError } from '../../components/ui.tsx';
import { useSocialClient, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem, type Navigate } from './Status.tsx';

const WHAT: Record<string, string> = {
  favourite: 'favourited your post',
  reblog: 'boosted your post',
  follow: 'followed you',
  follow_request: 'asked to follow you',
  mention: 'mentioned you',
  status: 'posted',
  poll: 'a poll has ended',
  update: 'edited a post',
  'admin.sign_up': 'signed up',
};

/** The type filters Mastodon's web client offers over notifications. */
const FILTERS: [string, string[] | null][] = [
  ['All', null],
  ['Mentions', ['mention']],
  ['Favourites', ['favourite']],
  ['Boosts', ['reblog']],
  ['Follows', ['follow', 'follow_request']],
  ['Polls', ['poll']],
  ['Edits', ['update']],
];

export function Notifications() {
  const { notifications, loadNotifications, markNotificationsRead } = useSocialClient();
  const [filter, setFilter] = useState('All');
  useEffect(() => {
    const types = FILTERS.find(([name]) => name === filter)?.[1] ?? null;
    // Only the whole list moves the reading position: a filtered view has not shown everything.
    void loadNotifications(types ?? undefined).then(() => (types ? undefined : markNotificationsRead()));
  }, [filter, loadNotifications, markNotificationsRead]);
  return (
    <>
      <div className="toolbar" role="group" aria-label="Show notifications">
        {FILTERS.map(([name]) => (
          <button key={name} type="button" aria-pressed={filter === name} onClick={() => setFilter(name)}>
            {name}
          </button>
        ))}
      </div>
      {notifications.length === 0 ? <Empty>{filter === 'All' ? 'No notifications yet.' : `No ${filter.toLowerCase()} yet.`}</Empty> : <NotificationList />}
    </>
  );
}

function NotificationList() {
  const { notifications } = useSocialClient();
  return (
    <ol className="notifications" aria-label="Notifications">
      {notifications.map((n) => {
        const first = n.accounts[0];
        const who = first ? first.display_name || first.username : 'Someone';
        const others = n.count - 1;
        return (
          <li key={n.key} data-type={n.type}>
            <p>
              <strong>{who}</strong>
              {others > 0 ? ` and ${others} ${others === 1 ? 'other' : 'others'}` : ''} {WHAT[n.type] ?? n.type}
            </p>
            {n.status && <div className="content muted" dangerouslySetInnerHTML={{ __html: (n.status.reblog ?? n.status).content }} />}
          </li>
        );
      })}
    </ol>
  );
}

/** A list of posts read page by page, following the server's Link header (timelines, bookmarks, favourites). */
export function PagedStatuses({ title, path, empty, onOpen, onProfile }: { title: string; path: string; empty: string } & Navigate) {
  const { page } = useSocialClient();
  const [posts, setPosts] = useState<SocialStatus[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (from: string) => {
      try {
        const result = await page<SocialStatus>(from);
        setPosts((list) => (from === path ? result.items : [...list, ...result.items]));
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
  const id = `${title.toLowerCase().replace(/\W+/g, '-')}-title`;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <FormError message={error} />
      {loaded && posts.length === 0 ? <Empty>{empty}</Empty> : posts.map((s) => <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />)}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Load older posts
        </button>
      )}
    </section>
  );
}

/** The public timelines: this server's posts (local) or every post it knows (federated). */
export function PublicTimeline({ local, onOpen, onProfile }: { local: boolean } & Navigate) {
  return (
    <PagedStatuses title={local ? 'Local' : 'Federated'} path={`/api/v1/timelines/public?limit=20${local ? '&local=true' : ''}`} empty="No public posts yet." onOpen={onOpen} onProfile={onProfile} />
  );
}

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

export function Notifications() {
  const { notifications, loadNotifications, markNotificationsRead } = useSocialClient();
  useEffect(() => {
    void loadNotifications().then(() => markNotificationsRead());
  }, [loadNotifications, markNotificationsRead]);
  if (notifications.length === 0) return <Empty>No notifications yet.</Empty>;
  return (
    <ol className="notifications">
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

/** The public timelines: this server's posts (local) or every post it knows (federated), older ones on request. */
export function PublicTimeline({ local, onOpen, onProfile }: { local: boolean } & Navigate) {
  const { request } = useSocialClient();
  const [posts, setPosts] = useState<SocialStatus[]>([]);
  const [more, setMore] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (maxId?: string) => {
      try {
        const page = await request<SocialStatus[]>(`/api/v1/timelines/public?limit=20${local ? '&local=true' : ''}${maxId ? `&max_id=${maxId}` : ''}`);
        setPosts((list) => (maxId ? [...list, ...page] : page));
        setMore(page.length === 20);
      } catch (err) {
        setError((err as Error).message);
      }
    },
    [local, request],
  );
  useEffect(() => {
    void load();
  }, [load]);
  const title = local ? 'Local' : 'Federated';
  return (
    <section aria-labelledby="public-title">
      <h2 id="public-title">{title}</h2>
      <FormError message={error} />
      {posts.length === 0 ? <Empty>No public posts yet.</Empty> : posts.map((s) => <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />)}
      {more && posts.length > 0 && (
        <button type="button" onClick={() => void load(posts[posts.length - 1].id)}>
          Load older posts
        </button>
      )}
    </section>
  );
}

import { useEffect, useState } from 'react';
import { Empty, Link } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';
import type { Navigate } from './Status.tsx';
import type { LiveStream } from '../../stores/live-timeline.ts';
import { StatusPages } from './paged-list.tsx';
import { accountPath, socialPath, statusPath } from './routes.ts';
import { RelativeTime } from './RelativeTime.tsx';

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

/** The type filters Mastodon's web client offers over notifications, by the `type` of their address. */
const FILTERS: { type: string | undefined; name: string; types: string[] | null }[] = [
  { type: undefined, name: 'All', types: null },
  { type: 'mention', name: 'Mentions', types: ['mention'] },
  { type: 'favourite', name: 'Favourites', types: ['favourite'] },
  { type: 'reblog', name: 'Boosts', types: ['reblog'] },
  { type: 'follow', name: 'Follows', types: ['follow', 'follow_request'] },
  { type: 'poll', name: 'Polls', types: ['poll'] },
  { type: 'update', name: 'Edits', types: ['update'] },
];

/** Notifications, all or of one kind (`/notifications?type=mention`). */
export function Notifications({ type }: { type?: string }) {
  const { notifications, loadNotifications, markNotificationsRead } = useSocialClient();
  const filter = FILTERS.find((f) => f.type === type) ?? FILTERS[0];
  useEffect(() => {
    const types = filter.types;
    // Only the whole list moves the reading position: a filtered view has not shown everything.
    void loadNotifications(types ?? undefined).then(() => (types ? undefined : markNotificationsRead()));
  }, [filter, loadNotifications, markNotificationsRead]);
  return (
    <>
      <nav className="tabs" aria-label="Show notifications">
        {FILTERS.map((f) => (
          <Link
            key={f.name}
            to={socialPath(['notifications'], { type: f.type })}
            className="tab"
            aria-current={filter === f ? 'page' : undefined}
          >
            {f.name}
          </Link>
        ))}
      </nav>
      {notifications.length === 0 ? (
        <Empty>{filter.types === null ? 'No notifications yet.' : `No ${filter.name.toLowerCase()} yet.`}</Empty>
      ) : (
        <NotificationList />
      )}
    </>
  );
}

function NotificationList() {
  const { notifications } = useSocialClient();
  // Who among the new followers one does not follow yet, for "Follow back".
  const followers = [
    ...new Set(notifications.filter((n) => n.type === 'follow').flatMap((n) => n.accounts.map((a) => a.id))),
  ];
  const { following, follow } = useFollowing(followers);
  return (
    <ol className="notifications" aria-label="Notifications">
      {notifications.map((n) => {
        const first = n.accounts[0];
        const who = first ? first.display_name || first.username : 'Someone';
        const others = n.count - 1;
        return (
          <li key={n.key} data-type={n.type} className="notification">
            <div className="avatars" aria-hidden="true">
              {n.accounts.slice(0, 4).map((a) => (
                <img key={a.id} src={a.avatar} alt="" width={32} height={32} />
              ))}
            </div>
            <div className="notification-body">
              <p>
                {first ? (
                  <Link to={accountPath(first.id)} className="name">
                    {who}
                  </Link>
                ) : (
                  <strong>{who}</strong>
                )}
                {others > 0 ? ` and ${others} ${others === 1 ? 'other' : 'others'}` : ''} {WHAT[n.type] ?? n.type}
                {n.at && (
                  <>
                    {' · '}
                    {n.status ? (
                      <Link to={statusPath((n.status.reblog ?? n.status).id)} className="muted">
                        <RelativeTime iso={n.at} />
                      </Link>
                    ) : (
                      <span className="muted">
                        <RelativeTime iso={n.at} />
                      </span>
                    )}
                  </>
                )}
              </p>
              {/* Not one link: the post's own hashtag and mention links stay usable; its time opens it. */}
              {n.status && (
                <div
                  className="content muted notification-status"
                  dangerouslySetInnerHTML={{ __html: (n.status.reblog ?? n.status).content }}
                />
              )}
              {n.type === 'follow' && first && following[first.id] === false && (
                <button type="button" onClick={() => void follow(first.id)} aria-label={`Follow back @${first.acct}`}>
                  Follow back
                </button>
              )}
              {n.type === 'follow' && first && following[first.id] === true && (
                <span className="muted">You follow each other</span>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/** Whether one follows each of `ids` (relationships), and following one of them. */
function useFollowing(ids: string[]) {
  const { request } = useSocialClient();
  const [following, setFollowing] = useState<Record<string, boolean>>({});
  const key = ids.join(',');
  useEffect(() => {
    if (!key) return;
    const query = key
      .split(',')
      .map((id) => `id[]=${encodeURIComponent(id)}`)
      .join('&');
    request<{ id: string; following: boolean; requested: boolean }[]>(`/api/v1/accounts/relationships?${query}`)
      .then((rels) => setFollowing(Object.fromEntries(rels.map((r) => [r.id, r.following || r.requested]))))
      .catch(() => setFollowing({}));
  }, [key, request]);
  const follow = async (id: string) => {
    const rel = await request<{ following: boolean; requested: boolean }>(`/api/v1/accounts/${id}/follow`, {
      method: 'POST',
    });
    setFollowing((f) => ({ ...f, [id]: rel.following || rel.requested }));
  };
  return { following, follow };
}

/** A list of posts read page by page, following the server's Link header (timelines, bookmarks, favourites), under its heading. */
export function PagedStatuses({
  title,
  path,
  empty,
  live,
  onOpen,
  onProfile,
}: { title: string; path: string; empty: string; live?: LiveStream } & Navigate) {
  return (
    <StatusPages heading label={title} path={path} empty={empty} live={live} onOpen={onOpen} onProfile={onProfile} />
  );
}

/** The public timelines: this server's posts (local) or every post it knows (federated). */
export function PublicTimeline({ local, onOpen, onProfile }: { local: boolean } & Navigate) {
  return (
    <PagedStatuses
      title={local ? 'Local' : 'Federated'}
      path={`/api/v1/timelines/public?limit=20${local ? '&local=true' : ''}`}
      live={{ stream: local ? 'public:local' : 'public' }}
      empty="No public posts yet."
      onOpen={onOpen}
      onProfile={onProfile}
    />
  );
}

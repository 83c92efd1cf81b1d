import { useEffect, useState } from 'react';
import { Empty } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';
import type { Navigate } from './Status.tsx';
import type { LiveStream } from '../../stores/live-timeline.ts';
import { StatusPages } from './paged-list.tsx';

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
      {notifications.length === 0 ? (
        <Empty>{filter === 'All' ? 'No notifications yet.' : `No ${filter.toLowerCase()} yet.`}</Empty>
      ) : (
        <NotificationList />
      )}
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
            {n.status && (
              <div
                className="content muted"
                dangerouslySetInnerHTML={{ __html: (n.status.reblog ?? n.status).content }}
              />
            )}
          </li>
        );
      })}
    </ol>
  );
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

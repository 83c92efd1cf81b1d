import { useEffect, useState } from 'react';
import { Empty, FormError } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';
import { Compose } from './Compose.tsx';
import { FollowSearch, Profile } from './Profile.tsx';
import { HomeList } from './HomeList.tsx';
import { Thread } from './Thread.tsx';
import { ShortcutHelp, useShortcuts } from './shortcuts.tsx';
import { Filters } from './Filters.tsx';
import { Lists } from './Lists.tsx';
import { People } from './People.tsx';
import { Notifications, PagedStatuses, PublicTimeline } from './Timelines.tsx';
import { FollowedHashtags, HashtagTimeline } from './Hashtags.tsx';
import { Settings } from './Settings.tsx';
import { useContentLinks } from './content-links.ts';

type Tab =
  | 'home'
  | 'local'
  | 'federated'
  | 'notifications'
  | 'bookmarks'
  | 'favourites'
  | 'lists'
  | 'filters'
  | 'people'
  | 'hashtags'
  | 'settings';
const TABS: [Tab, string][] = [
  ['home', 'Home'],
  ['local', 'Local'],
  ['federated', 'Federated'],
  ['notifications', 'Notifications'],
  ['bookmarks', 'Bookmarks'],
  ['favourites', 'Favourites'],
  ['lists', 'Lists'],
  ['filters', 'Filters'],
  ['people', 'People'],
  ['hashtags', 'Hashtags'],
  ['settings', 'Settings'],
];

/** The signed-in client: compose, the home timeline kept live by the streaming API, notifications, and finding people. */
export function Client() {
  const { me, server, home, incoming, showIncoming, connectStream, signOut, error, live, unread } = useSocialClient();
  const [tab, setTab] = useState<Tab>('home');
  const [thread, setThread] = useState<string | null>(null);
  const [profile, setProfile] = useState<string | null>(null);
  // A hashtag's timeline shows over a profile, which shows over a thread: Back returns to the one below.
  const [tag, setTag] = useState<string | null>(null);
  // A tab always shows: it closes whatever thread, profile or hashtag was open over the previous one.
  const show = (next: Tab) => {
    setTag(null);
    setProfile(null);
    setThread(null);
    setTab(next);
  };
  const openThread = (id: string) => {
    setTag(null);
    setProfile(null);
    setThread(id);
  };
  const openProfile = (id: string) => {
    setTag(null);
    setProfile(id);
  };
  const followContentLink = useContentLinks(setTag, openProfile);
  useEffect(() => connectStream(), [connectStream, server]);
  const { help, closeHelp } = useShortcuts();
  return (
    <div className="social-client" onClick={followContentLink}>
      <p className="toolbar">
        Signed in as <strong>@{me?.acct}</strong>
        {server !== location.origin && (
          <>
            {' '}
            on <strong>{new URL(server).host}</strong>
          </>
        )}{' '}
        <span className="muted">{live ? 'live' : 'connecting…'}</span>{' '}
        <button type="button" onClick={signOut}>
          Sign out of the client
        </button>{' '}
        <span className="muted">
          Press <kbd>?</kbd> for keyboard shortcuts
        </span>
      </p>
      <ShortcutHelp open={help} onClose={closeHelp} />
      <Compose />
      <FormError message={error} />
      <div className="toolbar" role="group" aria-label="Timelines">
        {TABS.map(([name, label]) => (
          <button key={name} type="button" aria-pressed={tab === name} onClick={() => show(name)}>
            {label}
            {name === 'notifications' && unread > 0 ? ` (${unread})` : ''}
          </button>
        ))}
      </div>
      {tag ? (
        <HashtagTimeline key={tag} tag={tag} onClose={() => setTag(null)} onOpen={openThread} onProfile={openProfile} />
      ) : profile ? (
        <Profile
          key={profile}
          id={profile}
          onClose={() => setProfile(null)}
          onOpen={openThread}
          onProfile={openProfile}
          onTag={setTag}
        />
      ) : thread ? (
        <Thread id={thread} onClose={() => setThread(null)} onOpen={openThread} onProfile={setProfile} />
      ) : tab === 'home' ? (
        <section aria-labelledby="home-title">
          <h2 id="home-title">Home</h2>
          {incoming.length > 0 && (
            <button type="button" className="primary new-posts" onClick={showIncoming}>
              {incoming.length === 1 ? '1 new post' : `${incoming.length} new posts`}
            </button>
          )}
          {home.length === 0 ? (
            <Empty>Nothing here yet: post something, or follow someone.</Empty>
          ) : (
            <HomeList onOpen={openThread} onProfile={setProfile} />
          )}
        </section>
      ) : tab === 'local' || tab === 'federated' ? (
        <PublicTimeline key={tab} local={tab === 'local'} onOpen={openThread} onProfile={setProfile} />
      ) : tab === 'bookmarks' ? (
        <PagedStatuses
          key={tab}
          title="Bookmarks"
          path="/api/v1/bookmarks?limit=20"
          empty="Nothing bookmarked yet: press Bookmark (or s) on a post."
          onOpen={openThread}
          onProfile={setProfile}
        />
      ) : tab === 'hashtags' ? (
        <FollowedHashtags onTag={setTag} />
      ) : tab === 'settings' ? (
        <Settings />
      ) : tab === 'filters' ? (
        <Filters />
      ) : tab === 'people' ? (
        <People onProfile={setProfile} />
      ) : tab === 'lists' ? (
        <Lists onOpen={openThread} onProfile={setProfile} />
      ) : tab === 'favourites' ? (
        <PagedStatuses
          key={tab}
          title="Favourites"
          path="/api/v1/favourites?limit=20"
          empty="No favourites yet."
          onOpen={openThread}
          onProfile={setProfile}
        />
      ) : (
        <section aria-labelledby="notifications-title">
          <h2 id="notifications-title">Notifications</h2>
          <Notifications />
        </section>
      )}
      <FollowSearch onOpen={openThread} onProfile={openProfile} onTag={setTag} />
    </div>
  );
}

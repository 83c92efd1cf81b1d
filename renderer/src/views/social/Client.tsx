import { useEffect, useState } from 'react';
import { Empty, FormError, Link } from '../../components/ui.tsx';
import { useRouter } from '../../stores/router.ts';
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
import { SearchBox } from './SearchBox.tsx';
import { accountPath, backInClient, openProfile, openTag, openThread, socialPath, type ProfileTab } from './routes.ts';

const PAGES: [string, string][] = [
  ['home', 'Home'],
  ['notifications', 'Notifications'],
  ['local', 'Local'],
  ['federated', 'Federated'],
  ['bookmarks', 'Bookmarks'],
  ['favourites', 'Favourites'],
  ['lists', 'Lists'],
  ['hashtags', 'Hashtags'],
  ['people', 'People'],
  ['filters', 'Filters'],
  ['settings', 'Settings'],
];
const PROFILE_TABS: ProfileTab[] = ['posts', 'replies', 'media', 'following', 'followers'];

/** The signed-in client: navigation, compose, and the view the address names (see routes.ts). */
export function Client() {
  const { me, server, connectStream, signOut, error, live, unread, draft } = useSocialClient();
  const rest = useRouter((r) => r.rest);
  const query = useRouter((r) => r.query);
  const page = rest[0] ?? 'home';
  const followContentLink = useContentLinks(openTag, openProfile);
  useEffect(() => connectStream(), [connectStream, server]);
  // On narrow windows compose opens over the column on request (New post, `n`, Reply); wide ones always show it.
  const [composing, setComposing] = useState(false);
  const openCompose = () => {
    setComposing(true);
    requestAnimationFrame(() => document.getElementById('compose-text')?.focus());
  };
  useEffect(() => {
    if (draft) setComposing(true);
  }, [draft]);
  const { help, closeHelp } = useShortcuts(openCompose);
  return (
    <div className="social-client" onClick={followContentLink}>
      <a className="skip-link" href="#social-column">
        Skip to the posts
      </a>
      <ShortcutHelp open={help} onClose={closeHelp} />
      <nav className="social-nav" aria-label="Social">
        <SearchBox initial={page === 'search' ? (query.q ?? '') : ''} />
        <button type="button" className="primary new-post" onClick={openCompose} aria-keyshortcuts="n">
          New post
        </button>
        <ul>
          {PAGES.map(([name, label]) => (
            <li key={name}>
              <Link to={socialPath([name])} aria-current={page === name ? 'page' : undefined}>
                {label}
                {name === 'notifications' && unread > 0 ? ` (${unread})` : ''}
              </Link>
            </li>
          ))}
          {me && (
            <li>
              <Link
                to={accountPath(me.id)}
                aria-current={page === 'accounts' && rest[1] === me.id ? 'page' : undefined}
              >
                Profile
              </Link>
            </li>
          )}
        </ul>
        <p className="signed-in muted">
          Signed in as <strong>@{me?.acct}</strong>
          {server !== location.origin && (
            <>
              {' '}
              on <strong>{new URL(server).host}</strong>
            </>
          )}{' '}
          · <span>{live ? 'live' : 'connecting…'}</span>
        </p>
        <p className="muted">
          <button type="button" className="link" onClick={signOut}>
            Sign out of the client
          </button>{' '}
          · <kbd>?</kbd> shortcuts
        </p>
      </nav>
      <div className="social-column" id="social-column" tabIndex={-1}>
        <FormError message={error} />
        <ClientPage rest={rest} query={query} />
      </div>
      <section className={composing ? 'social-compose open' : 'social-compose'} aria-label="New post">
        <button type="button" className="close-compose" onClick={() => setComposing(false)}>
          Close
        </button>
        <Compose />
      </section>
    </div>
  );
}

/** The view the address names; an unknown address says so rather than showing Home under a wrong URL. */
function ClientPage({ rest, query }: { rest: string[]; query: Record<string, string> }) {
  const [page = 'home', id, sub] = rest;
  const nav = { onOpen: openThread, onProfile: openProfile };
  switch (page) {
    case 'home':
      return <HomeTimeline />;
    case 'local':
    case 'federated':
      return <PublicTimeline key={page} local={page === 'local'} {...nav} />;
    case 'notifications':
      return (
        <section aria-labelledby="notifications-title">
          <h2 id="notifications-title">Notifications</h2>
          <Notifications type={query.type} />
        </section>
      );
    case 'bookmarks':
      return (
        <PagedStatuses
          key={page}
          title="Bookmarks"
          path="/api/v1/bookmarks?limit=20"
          empty="Nothing bookmarked yet: press Bookmark (or s) on a post."
          {...nav}
        />
      );
    case 'favourites':
      return (
        <PagedStatuses
          key={page}
          title="Favourites"
          path="/api/v1/favourites?limit=20"
          empty="No favourites yet."
          {...nav}
        />
      );
    case 'lists':
      return <Lists openId={id} {...nav} />;
    case 'hashtags':
      return <FollowedHashtags onTag={openTag} />;
    case 'tags':
      if (id) return <HashtagTimeline key={id} tag={id} onClose={backInClient} {...nav} />;
      break;
    case 'people':
      return <People onProfile={openProfile} />;
    case 'filters':
      return <Filters />;
    case 'settings':
      return <Settings />;
    case 'statuses':
      if (id) return <Thread key={id} id={id} onClose={backInClient} {...nav} />;
      break;
    case 'accounts':
      if (id && (sub === undefined || PROFILE_TABS.includes(sub as ProfileTab)))
        return (
          <Profile
            key={id}
            id={id}
            tab={(sub as ProfileTab | undefined) ?? 'posts'}
            onClose={backInClient}
            onTag={openTag}
            {...nav}
          />
        );
      break;
    case 'search':
      return <FollowSearch key={query.q ?? ''} q={query.q ?? ''} onTag={openTag} {...nav} />;
  }
  return (
    <section aria-labelledby="not-found-title">
      <h2 id="not-found-title">Not found</h2>
      <Empty>
        Nothing lives at this address in the social client. <Link to={socialPath(['home'])}>Go to Home</Link>
      </Empty>
    </section>
  );
}

function HomeTimeline() {
  const { home, incoming, showIncoming } = useSocialClient();
  return (
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
        <HomeList onOpen={openThread} onProfile={openProfile} />
      )}
    </section>
  );
}

import { Link } from '../../../components/ui.tsx';
import type { SocialAccount, SocialStatus } from '../../../stores/social-client.ts';
import { PagedListState, StatusPages, usePagedList } from '../paged-list.tsx';
import { StatusItem, type Navigate } from '../Status.tsx';
import { useResource } from '../use-resource.ts';
import { accountPath, type ProfileTab } from '../routes.ts';

type Section = ProfileTab;

const SECTIONS: { id: Section; label: string }[] = [
  { id: 'posts', label: 'Posts' },
  { id: 'replies', label: 'Posts and replies' },
  { id: 'media', label: 'Media' },
  { id: 'following', label: 'Following' },
  { id: 'followers', label: 'Followers' },
];

/** Which of the account's statuses each tab shows, as Mastodon's web client asks for them. */
const STATUS_QUERY: Record<'posts' | 'replies' | 'media', string> = {
  posts: 'exclude_replies=true',
  replies: 'exclude_replies=false',
  media: 'only_media=true',
};

/** A profile's tabs: its posts (pinned ones first), with replies, with media, and whom it follows and who follows it. */
export function ProfileSections({
  account,
  section,
  onOpen,
  onProfile,
}: { account: SocialAccount; section: Section; onProfile: (id: string) => void } & Pick<Navigate, 'onOpen'>) {
  const label = SECTIONS.find((s) => s.id === section)!.label;
  return (
    <>
      <nav className="tabs" aria-label="Profile sections">
        {SECTIONS.map((s) => (
          <Link
            key={s.id}
            to={accountPath(account.id, s.id)}
            className="tab"
            aria-current={section === s.id ? 'page' : undefined}
          >
            {s.label}
          </Link>
        ))}
      </nav>
      {section === 'following' || section === 'followers' ? (
        <AccountPages
          key={section}
          path={`/api/v1/accounts/${account.id}/${section}?limit=40`}
          label={label}
          empty={section === 'following' ? 'Follows no one yet.' : 'No followers yet.'}
          onProfile={onProfile}
        />
      ) : (
        <>
          {section === 'posts' && <PinnedPosts accountId={account.id} onOpen={onOpen} onProfile={onProfile} />}
          <StatusPages
            key={section}
            path={`/api/v1/accounts/${account.id}/statuses?limit=20&${STATUS_QUERY[section]}`}
            label={label}
            empty={section === 'media' ? 'No posts with media yet.' : 'No posts yet.'}
            onOpen={onOpen}
            onProfile={onProfile}
          />
        </>
      )}
    </>
  );
}

/** The posts the account pinned to its profile, each marked so. */
function PinnedPosts({ accountId, onOpen, onProfile }: { accountId: string } & Navigate) {
  const { data: pinned } = useResource<SocialStatus[]>(`/api/v1/accounts/${accountId}/statuses?pinned=true`);
  if (!pinned?.length) return null;
  return (
    <section aria-label="Pinned posts" className="pinned">
      {pinned.map((s) => (
        <div key={s.id}>
          <p className="muted">Pinned</p>
          <StatusItem status={s} onOpen={onOpen} onProfile={onProfile} />
        </div>
      ))}
    </section>
  );
}

/** Followers or followed accounts, page by page (Link header). */
function AccountPages({
  path,
  label,
  empty,
  onProfile,
}: {
  path: string;
  label: string;
  empty: string;
  onProfile: (id: string) => void;
}) {
  const { items, loaded, error, more } = usePagedList<SocialAccount>(path);
  return (
    <section aria-label={label}>
      {items.length > 0 && (
        <ul className="accounts" aria-label={label}>
          {items.map((a) => (
            <li key={a.id}>
              <Link to={accountPath(a.id)} className="name">
                {a.display_name || a.username}
              </Link>{' '}
              <span className="muted">@{a.acct}</span>
            </li>
          ))}
        </ul>
      )}
      <PagedListState
        loaded={loaded}
        error={error}
        count={items.length}
        empty={empty}
        more={more}
        moreLabel="Load more"
      />
    </section>
  );
}

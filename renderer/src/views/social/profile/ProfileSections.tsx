import { useState } from 'react';
import type { SocialAccount, SocialStatus } from '../../../stores/social-client.ts';
import { PagedListState, StatusPages, usePagedList } from '../paged-list.tsx';
import { StatusItem, type Navigate } from '../Status.tsx';
import { useResource } from '../use-resource.ts';

type Section = 'posts' | 'replies' | 'media' | 'following' | 'followers';

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
  onOpen,
  onProfile,
}: { account: SocialAccount; onProfile: (id: string) => void } & Pick<Navigate, 'onOpen'>) {
  const [section, setSection] = useState<Section>('posts');
  const label = SECTIONS.find((s) => s.id === section)!.label;
  return (
    <>
      <div className="toolbar" role="group" aria-label="Profile sections">
        {SECTIONS.map((s) => (
          <button key={s.id} type="button" aria-pressed={section === s.id} onClick={() => setSection(s.id)}>
            {s.label}
          </button>
        ))}
      </div>
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
              <button type="button" className="link name" onClick={() => onProfile(a.id)}>
                {a.display_name || a.username}
              </button>{' '}
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

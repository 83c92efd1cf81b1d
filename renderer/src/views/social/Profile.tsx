import { useCallback, useEffect, useState } from 'react';
import { Empty, FormError, Link, Loading } from '../../components/ui.tsx';
import { useSocialClient, type SocialAccount, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem, type Navigate } from './Status.tsx';
import { ProfileEditor } from './ProfileEditor.tsx';
import { FeaturedTags } from './profile/FeaturedTags.tsx';
import { ProfileSections } from './profile/ProfileSections.tsx';
import { PrivateNote, RelationshipActions, type Relationship } from './profile/Relationship.tsx';
import { accountPath, tagPath, type ProfileTab } from './routes.ts';

/** An account's page: who they are, their numbers, what one has to do with them, and their posts and people. */
export function Profile({
  id,
  tab,
  onClose,
  onOpen,
  onProfile,
  onTag,
}: {
  id: string;
  tab: ProfileTab;
  onClose: () => void;
  onOpen: (id: string) => void;
  onProfile: (id: string) => void;
  onTag: (name: string) => void;
}) {
  const { request, me } = useSocialClient();
  const [account, setAccount] = useState<SocialAccount | null>(null);
  const [relationship, setRelationship] = useState<Relationship | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const load = useCallback(async () => {
    try {
      const [found, relationships] = await Promise.all([
        request<SocialAccount>(`/api/v1/accounts/${id}`),
        request<Relationship[]>(`/api/v1/accounts/relationships?id[]=${id}`),
      ]);
      setAccount(found);
      setRelationship(relationships[0] ?? null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, [id, request]);
  useEffect(() => {
    void load();
  }, [load]);
  const changed = (r: Relationship) => {
    setRelationship(r);
    // Following, and blocking (which ends following), move the numbers.
    void load();
  };
  const own = me?.id === account?.id;
  return (
    <section aria-labelledby="profile-title" className="profile">
      <button type="button" onClick={onClose}>
        Back
      </button>
      <FormError message={error} />
      {!account && !error && <Loading />}
      {account && (
        <>
          {account.header && !account.header.endsWith('/headers/original/missing.png') && (
            <img className="profile-header-image" src={account.header} alt={account.header_description || ''} />
          )}
          <header className="profile-head">
            <img src={account.avatar} alt={account.avatar_description || ''} width={64} height={64} />
            <div>
              <h2 id="profile-title">{account.display_name || account.username}</h2>
              <p className="muted">@{account.acct}</p>
            </div>
          </header>
          {/* The bio is HTML the server formatted (local) or sanitized (remote). */}
          {account.note && <div className="content" dangerouslySetInnerHTML={{ __html: account.note }} />}
          <p className="muted">
            {account.statuses_count ?? 0} posts · {account.following_count ?? 0} following ·{' '}
            {account.followers_count ?? 0} followers
          </p>
          {account.fields && account.fields.length > 0 && (
            <dl className="fields" aria-label="Profile fields">
              {account.fields.map((f) => (
                <div key={f.name}>
                  <dt>{f.name}</dt>
                  {/* Field values are HTML the server formatted (links), as the bio. */}
                  <dd dangerouslySetInnerHTML={{ __html: f.value }} />
                </div>
              ))}
            </dl>
          )}
          <FeaturedTags accountId={account.id} onTag={onTag} />
          {own &&
            (editing ? (
              <ProfileEditor
                onDone={() => {
                  setEditing(false);
                  void load();
                }}
              />
            ) : (
              <button type="button" onClick={() => setEditing(true)}>
                Edit profile
              </button>
            ))}
          {!own && relationship && (
            <>
              <RelationshipActions account={account} relationship={relationship} onChange={changed} />
              <PrivateNote account={account} relationship={relationship} onChange={setRelationship} />
            </>
          )}
          <ProfileSections key={account.id} account={account} section={tab} onOpen={onOpen} onProfile={onProfile} />
        </>
      )}
    </section>
  );
}

interface SearchResults {
  accounts: (SocialAccount & { following?: boolean })[];
  hashtags: { name: string; history?: { uses: string }[] }[];
  statuses: SocialStatus[];
}

/**
 * Search as Mastodon's v2 search answers it: people (remote handles and profile links looked up on their
 * server, then followed from here), hashtags (opened as their timeline) and posts.
 */
export function FollowSearch({ q, onOpen, onProfile }: Navigate & { q: string; onTag: (name: string) => void }) {
  const { request, me } = useSocialClient();
  const [results, setResults] = useState<SearchResults | null>(null);
  const [error, setError] = useState<string | null>(null);
  const search = useCallback(async () => {
    setError(null);
    if (!q) return;
    try {
      const found = await request<SearchResults>(`/api/v2/search?resolve=true&limit=10&q=${encodeURIComponent(q)}`);
      const ids = found.accounts.map((a) => `id[]=${a.id}`).join('&');
      const rels = found.accounts.length
        ? await request<{ id: string; following: boolean; requested: boolean }[]>(
            `/api/v1/accounts/relationships?${ids}`,
          )
        : [];
      setResults({
        ...found,
        accounts: found.accounts.map((a) => ({ ...a, following: rels.find((r) => r.id === a.id)?.following })),
      });
    } catch (err) {
      setError((err as Error).message);
    }
  }, [q, request]);
  useEffect(() => {
    void search();
  }, [search]);
  const follow = async (account: SocialAccount) => {
    try {
      const rel = await request<{ following: boolean; requested: boolean }>(`/api/v1/accounts/${account.id}/follow`, {
        method: 'POST',
      });
      setResults((r) =>
        r
          ? {
              ...r,
              accounts: r.accounts.map((x) =>
                x.id === account.id ? { ...x, following: rel.following || rel.requested } : x,
              ),
            }
          : r,
      );
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const nothing =
    results && results.accounts.length === 0 && results.hashtags.length === 0 && results.statuses.length === 0;
  return (
    <section aria-labelledby="find-title" className="find">
      <h2 id="find-title">{q ? `Search: ${q}` : 'Search'}</h2>
      {!q && <Empty>Type what you look for in the search field.</Empty>}
      <FormError message={error} />
      {nothing && <Empty>Nothing found.</Empty>}
      {results && results.accounts.length > 0 && (
        <ul className="accounts" aria-label="People">
          {results.accounts.map((a) => (
            <li key={a.id}>
              <Link to={accountPath(a.id)} className="name">
                {a.display_name || a.username}
              </Link>{' '}
              <span className="muted">@{a.acct}</span>{' '}
              {a.id === me?.id ? (
                <span className="muted">(you)</span>
              ) : (
                <button
                  type="button"
                  disabled={a.following}
                  onClick={() => void follow(a)}
                  aria-label={`Follow @${a.acct}`}
                >
                  {a.following ? 'Following' : 'Follow'}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {results && results.hashtags.length > 0 && (
        <ul className="accounts" aria-label="Hashtags">
          {results.hashtags.map((h) => (
            <li key={h.name}>
              <Link to={tagPath(h.name)}>#{h.name}</Link>{' '}
              <span className="muted">{(h.history ?? []).reduce((n, d) => n + Number(d.uses), 0)} posts this week</span>
            </li>
          ))}
        </ul>
      )}
      {results && results.statuses.length > 0 && (
        <section aria-label="Posts found">
          {results.statuses.map((s) => (
            <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
          ))}
        </section>
      )}
    </section>
  );
}

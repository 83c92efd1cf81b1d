import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Empty, FormError } from '../../components/ui.tsx';
import { useSocialClient, type SocialAccount, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem, type Navigate } from './Status.tsx';
import { PagedStatuses } from './Timelines.tsx';
import { ProfileEditor } from './ProfileEditor.tsx';

/** An account's page: who they are, their numbers, follow or unfollow, and their posts. */
export function Profile({ id, onClose, onOpen }: { id: string; onClose: () => void; onOpen: (id: string) => void }) {
  const { request, me } = useSocialClient();
  const [account, setAccount] = useState<SocialAccount | null>(null);
  const [posts, setPosts] = useState<SocialStatus[]>([]);
  const [following, setFollowing] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const load = useCallback(async () => {
    try {
      const [found, statuses, relationships] = await Promise.all([
        request<SocialAccount>(`/api/v1/accounts/${id}`),
        request<SocialStatus[]>(`/api/v1/accounts/${id}/statuses?limit=20`),
        request<{ following: boolean; requested: boolean }[]>(`/api/v1/accounts/relationships?id[]=${id}`),
      ]);
      setAccount(found);
      setPosts(statuses);
      setFollowing(relationships[0] ? relationships[0].following || relationships[0].requested : false);
    } catch (err) {
      setError((err as Error).message);
    }
  }, [id, request]);
  useEffect(() => {
    void load();
  }, [load]);
  const toggle = async () => {
    try {
      await request(`/api/v1/accounts/${id}/${following ? 'unfollow' : 'follow'}`, { method: 'POST' });
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="profile-title" className="profile">
      <button type="button" onClick={onClose}>
        Back
      </button>
      <FormError message={error} />
      {account && (
        <>
          {account.header && !account.header.endsWith('/headers/original/missing.png') && <img className="profile-header-image" src={account.header} alt={account.header_description || ''} />}
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
            {account.statuses_count ?? 0} posts · {account.following_count ?? 0} following · {account.followers_count ?? 0} followers
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
          {me && me.id === account.id &&
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
          {me && me.id !== account.id && following !== null && (
            <button type="button" className={following ? '' : 'primary'} onClick={() => void toggle()}>
              {following ? 'Unfollow' : 'Follow'}
            </button>
          )}
          {posts.length === 0 ? <Empty>No posts yet.</Empty> : posts.map((p) => <StatusItem key={p.id} status={p} onOpen={onOpen} />)}
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
export function FollowSearch({ onOpen, onProfile }: Navigate) {
  const { request, me } = useSocialClient();
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResults | null>(null);
  const [tag, setTag] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const search = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setTag(null);
    try {
      const found = await request<SearchResults>(`/api/v2/search?resolve=true&limit=10&q=${encodeURIComponent(q)}`);
      const ids = found.accounts.map((a) => `id[]=${a.id}`).join('&');
      const rels = found.accounts.length ? await request<{ id: string; following: boolean; requested: boolean }[]>(`/api/v1/accounts/relationships?${ids}`) : [];
      setResults({ ...found, accounts: found.accounts.map((a) => ({ ...a, following: rels.find((r) => r.id === a.id)?.following })) });
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const follow = async (account: SocialAccount) => {
    try {
      const rel = await request<{ following: boolean; requested: boolean }>(`/api/v1/accounts/${account.id}/follow`, { method: 'POST' });
      setResults((r) => (r ? { ...r, accounts: r.accounts.map((x) => (x.id === account.id ? { ...x, following: rel.following || rel.requested } : x)) } : r));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const nothing = results && results.accounts.length === 0 && results.hashtags.length === 0 && results.statuses.length === 0;
  return (
    <section aria-labelledby="find-title" className="find">
      <h2 id="find-title">Search</h2>
      <form className="toolbar" role="search" onSubmit={(e) => void search(e)}>
        <label>
          People, #hashtags or posts
          <input id="find-people" value={q} onChange={(e) => setQ(e.target.value)} required />
        </label>
        <button type="submit">Search</button>
      </form>
      <FormError message={error} />
      {nothing && <Empty>Nothing found.</Empty>}
      {results && results.accounts.length > 0 && (
        <ul className="accounts" aria-label="People">
          {results.accounts.map((a) => (
            <li key={a.id}>
              <span className="name">{a.display_name || a.username}</span> <span className="muted">@{a.acct}</span>{' '}
              {a.id === me?.id ? (
                <span className="muted">(you)</span>
              ) : (
                <button type="button" disabled={a.following} onClick={() => void follow(a)} aria-label={`Follow @${a.acct}`}>
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
              <button type="button" className="link" onClick={() => setTag(h.name)} aria-pressed={tag === h.name}>
                #{h.name}
              </button>{' '}
              <span className="muted">{(h.history ?? []).reduce((n, d) => n + Number(d.uses), 0)} posts this week</span>
            </li>
          ))}
        </ul>
      )}
      {tag ? (
        <PagedStatuses key={tag} title={`#${tag}`} path={`/api/v1/timelines/tag/${encodeURIComponent(tag)}?limit=20`} empty="No posts with this hashtag yet." onOpen={onOpen} onProfile={onProfile} />
      ) : (
        results &&
        results.statuses.length > 0 && (
          <section aria-label="Posts found">
            {results.statuses.map((s) => (
              <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
            ))}
          </section>
        )
      )}
    </section>
  );
}

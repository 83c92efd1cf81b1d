import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Empty, FormError } from '../../components/ui.tsx';
import { useSocialClient, type SocialAccount, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem } from './Status.tsx';

/** An account's page: who they are, their numbers, follow or unfollow, and their posts. */
export function Profile({ id, onClose, onOpen }: { id: string; onClose: () => void; onOpen: (id: string) => void }) {
  const { request, me } = useSocialClient();
  const [account, setAccount] = useState<SocialAccount | null>(null);
  const [posts, setPosts] = useState<SocialStatus[]>([]);
  const [following, setFollowing] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
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
          <header className="profile-head">
            <img src={account.avatar} alt="" width={64} height={64} />
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

export function FollowSearch() {
  const { request } = useSocialClient();
  const [q, setQ] = useState('');
  const [results, setResults] = useState<(SocialAccount & { following?: boolean })[]>([]);
  const [error, setError] = useState<string | null>(null);
  const search = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const found = await request<{ accounts: SocialAccount[] }>(`/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(q)}`);
      const ids = found.accounts.map((a) => `id[]=${a.id}`).join('&');
      const rels = found.accounts.length ? await request<{ id: string; following: boolean; requested: boolean }[]>(`/api/v1/accounts/relationships?${ids}`) : [];
      setResults(found.accounts.map((a) => ({ ...a, following: rels.find((r) => r.id === a.id)?.following })));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const follow = async (account: SocialAccount) => {
    try {
      const rel = await request<{ following: boolean; requested: boolean }>(`/api/v1/accounts/${account.id}/follow`, { method: 'POST' });
      setResults(results.map((r) => (r.id === account.id ? { ...r, following: rel.following || rel.requested } : r)));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="find-title" className="find">
      <h2 id="find-title">Find people</h2>
      <form className="toolbar" role="search" onSubmit={(e) => void search(e)}>
        <label>
          Name or @user@server
          <input id="find-people" value={q} onChange={(e) => setQ(e.target.value)} required />
        </label>
        <button type="submit">Search</button>
      </form>
      <FormError message={error} />
      <ul className="accounts">
        {results.map((a) => (
          <li key={a.id}>
            <span className="name">{a.display_name || a.username}</span> <span className="muted">@{a.acct}</span>{' '}
            <button type="button" disabled={a.following} onClick={() => void follow(a)} aria-label={`Follow @${a.acct}`}>
              {a.following ? 'Following' : 'Follow'}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Empty, FormError, Link, Loading } from '../../components/ui.tsx';
import { navigate } from '../../stores/router.ts';
import { useSocialClient, type SocialAccount } from '../../stores/social-client.ts';
import { useResource } from './use-resource.ts';
import type { Navigate } from './Status.tsx';
import { PagedStatuses } from './Timelines.tsx';
import { listPath, socialPath } from './routes.ts';

interface SocialList {
  id: string;
  title: string;
  replies_policy: 'followed' | 'list' | 'none';
  exclusive?: boolean;
}

const POLICIES: Record<SocialList['replies_policy'], string> = {
  followed: 'Replies to anyone you follow',
  list: 'Replies to members of the list',
  none: 'No replies',
};

/** One list: its timeline, its members (people you follow, added by name), and deleting it. */
function ListPage({
  list,
  onBack,
  onDeleted,
  onOpen,
  onProfile,
}: { list: SocialList; onBack: () => void; onDeleted: () => void } & Navigate) {
  const { request } = useSocialClient();
  const [members, setMembers] = useState<SocialAccount[]>([]);
  const [q, setQ] = useState('');
  const [found, setFound] = useState<SocialAccount[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const loadMembers = useCallback(async () => {
    try {
      setMembers(await request<SocialAccount[]>(`/api/v1/lists/${list.id}/accounts?limit=0`));
    } catch (err) {
      setError((err as Error).message);
    }
  }, [list.id, request]);
  useEffect(() => {
    void loadMembers();
  }, [loadMembers]);
  const change = async (accountId: string, add: boolean) => {
    try {
      await request(`/api/v1/lists/${list.id}/accounts`, {
        method: add ? 'POST' : 'DELETE',
        body: { account_ids: [accountId] },
      });
      setFound([]);
      setQ('');
      await loadMembers();
      setVersion((v) => v + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const search = async (e: FormEvent) => {
    e.preventDefault();
    try {
      // Lists hold only people you follow (as Mastodon's), so the search looks among them.
      setFound(
        await request<SocialAccount[]>(`/api/v1/accounts/search?following=true&limit=5&q=${encodeURIComponent(q)}`),
      );
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the list “${list.title}”? The people in it stay followed.`)) return;
    try {
      await request(`/api/v1/lists/${list.id}`, { method: 'DELETE' });
      onDeleted();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="list-title" className="list-page">
      <p className="toolbar">
        <button type="button" onClick={onBack}>
          Back to lists
        </button>{' '}
        <button type="button" className="danger" onClick={() => void remove()}>
          Delete list
        </button>
      </p>
      <h2 id="list-title">{list.title}</h2>
      <p className="muted">
        {POLICIES[list.replies_policy]}
        {list.exclusive ? '; its members’ posts stay out of Home' : ''}
      </p>
      <FormError message={error} />
      <h3>Members</h3>
      {members.length === 0 ? (
        <Empty>Nobody yet: add people you follow.</Empty>
      ) : (
        <ul aria-label="Members">
          {members.map((a) => (
            <li key={a.id}>
              {a.display_name || a.username} <span className="muted">@{a.acct}</span>{' '}
              <button
                type="button"
                onClick={() => void change(a.id, false)}
                aria-label={`Remove @${a.acct} from the list`}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="toolbar" onSubmit={(e) => void search(e)}>
        <label>
          Add someone you follow
          <input value={q} onChange={(e) => setQ(e.target.value)} required />
        </label>
        <button type="submit">Find</button>
      </form>
      {found.map((a) => (
        <p key={a.id}>
          {a.display_name || a.username} <span className="muted">@{a.acct}</span>{' '}
          <button type="button" onClick={() => void change(a.id, true)} disabled={members.some((m) => m.id === a.id)}>
            Add @{a.acct}
          </button>
        </p>
      ))}
      <PagedStatuses
        key={version}
        title={`${list.title}: posts`}
        path={`/api/v1/timelines/list/${list.id}?limit=20`}
        live={{ stream: 'list', list: list.id }}
        empty="No posts from the list’s members yet."
        onOpen={onOpen}
        onProfile={onProfile}
      />
    </section>
  );
}

/** The user's lists: made here (title, which replies show, exclusive or not), each opened to its timeline. */
export function Lists({ openId, onOpen, onProfile }: { openId?: string } & Navigate) {
  const { data: lists, error, act, reload: load, request } = useResource<SocialList[]>('/api/v1/lists');
  const [title, setTitle] = useState('');
  const [policy, setPolicy] = useState<SocialList['replies_policy']>('list');
  const [exclusive, setExclusive] = useState(false);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const list = await act(() =>
      request<SocialList>('/api/v1/lists', { method: 'POST', body: { title, replies_policy: policy, exclusive } }),
    );
    if (list) {
      setTitle('');
      await load();
      navigate(listPath(list.id));
    }
  };
  if (openId !== undefined) {
    const open = lists?.find((l) => l.id === openId);
    if (!open) return lists === null ? <Loading /> : <Empty>This list does not exist (any more).</Empty>;
    return (
      <ListPage
        key={open.id}
        list={open}
        onBack={() => navigate(socialPath(['lists']))}
        onDeleted={() => {
          navigate(socialPath(['lists']), { replace: true });
          void load();
        }}
        onOpen={onOpen}
        onProfile={onProfile}
      />
    );
  }
  return (
    <section aria-labelledby="lists-title">
      <h2 id="lists-title">Lists</h2>
      <FormError message={error} />
      {lists === null ? null : lists.length === 0 ? (
        <Empty>No lists yet: a list gathers people you follow into a timeline of their own.</Empty>
      ) : (
        <ul aria-label="Your lists">
          {lists.map((l) => (
            <li key={l.id}>
              <Link to={listPath(l.id)}>{l.title}</Link> <span className="muted">{POLICIES[l.replies_policy]}</span>
            </li>
          ))}
        </ul>
      )}
      <form className="toolbar" aria-label="New list" onSubmit={(e) => void create(e)}>
        <label>
          New list
          <input value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={100} />
        </label>
        <label>
          Replies shown
          <select value={policy} onChange={(e) => setPolicy(e.target.value as SocialList['replies_policy'])}>
            {Object.entries(POLICIES).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-label">
          <input type="checkbox" checked={exclusive} onChange={(e) => setExclusive(e.target.checked)} /> Keep its
          members’ posts out of Home
        </label>
        <button type="submit" className="primary">
          Create list
        </button>
      </form>
    </section>
  );
}

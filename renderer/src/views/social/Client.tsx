import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Empty, FormError } from '../../components/ui.tsx';
import { useSocialClient, type SocialAccount, type SocialMedia, type SocialPoll, type SocialStatus } from '../../stores/social-client.ts';

/** Counts as Mastodon does for the limit (close enough for the counter: each code point is one). */
function length(text: string): number {
  return [...text].length;
}

interface Attachment {
  file: string;
  progress: number;
  media: SocialMedia | null;
  description: string;
}

function Compose() {
  const { post, maxCharacters, upload, request } = useSocialClient();
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [poll, setPoll] = useState<{ options: string[]; expiresIn: number } | null>(null);
  const attach = (files: FileList | null) => {
    for (const file of [...(files ?? [])].slice(0, 4 - attachments.length)) {
      const entry: Attachment = { file: file.name, progress: 0, media: null, description: '' };
      setAttachments((list) => [...list, entry]);
      const update = (patch: Partial<Attachment>) => setAttachments((list) => list.map((a) => (a.file === entry.file ? { ...a, ...patch } : a)));
      upload(file, (progress) => update({ progress }))
        .then((media) => update({ media, progress: 1 }))
        .catch((err: Error) => {
          setError(err.message);
          setAttachments((list) => list.filter((a) => a.file !== entry.file));
        });
    }
  };
  const [text, setText] = useState('');
  const [spoiler, setSpoiler] = useState('');
  const [visibility, setVisibility] = useState('public');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const left = maxCharacters - length(text) - length(spoiler);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Descriptions go with the media before the post that shows them.
      for (const a of attachments) if (a.media && a.description) await request(`/api/v1/media/${a.media.id}`, { method: 'PUT', body: { description: a.description } });
      await post({ status: text, spoilerText: spoiler, visibility, mediaIds: attachments.flatMap((a) => (a.media ? [a.media.id] : [])), poll: poll ?? undefined });
      setText('');
      setSpoiler('');
      setAttachments([]);
      setPoll(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="compose" onSubmit={(e) => void submit(e)} aria-label="Compose">
      <label>
        Content warning (optional)
        <input value={spoiler} onChange={(e) => setSpoiler(e.target.value)} />
      </label>
      <label>
        What’s on your mind?
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} required={attachments.length === 0} />
      </label>
      <label>
        Add images, video or audio
        <input
          type="file"
          accept="image/*,video/*,audio/*"
          multiple
          disabled={attachments.length >= 4}
          onChange={(e) => {
            attach(e.target.files);
            // Cleared, so the same file can be chosen again and the field does not name a file already sent.
            e.target.value = '';
          }}
        />
      </label>
      {attachments.length === 0 && (
        <button type="button" aria-pressed={poll !== null} onClick={() => setPoll(poll ? null : { options: ['', ''], expiresIn: 86_400 })}>
          {poll ? 'Remove the poll' : 'Add a poll'}
        </button>
      )}
      {poll && (
        <fieldset className="poll-editor">
          <legend>Poll</legend>
          {poll.options.map((option, i) => (
            <label key={i}>
              Choice {i + 1}
              <input value={option} maxLength={50} required onChange={(e) => setPoll({ ...poll, options: poll.options.map((o, j) => (j === i ? e.target.value : o)) })} />
            </label>
          ))}
          {poll.options.length < 4 && (
            <button type="button" onClick={() => setPoll({ ...poll, options: [...poll.options, ''] })}>
              Add a choice
            </button>
          )}
          <label>
            Open for
            <select value={poll.expiresIn} onChange={(e) => setPoll({ ...poll, expiresIn: Number(e.target.value) })}>
              <option value={3_600}>1 hour</option>
              <option value={86_400}>1 day</option>
              <option value={604_800}>7 days</option>
            </select>
          </label>
        </fieldset>
      )}
      {attachments.map((a) => (
        <div key={a.file} className="attachment">
          <progress max={100} value={Math.round(a.progress * 100)} aria-label={`Upload of ${a.file}`} />
          {a.media?.preview_url && <img src={a.media.preview_url} alt="" width={80} />}
          <label>
            Description of {a.file}
            <input value={a.description} onChange={(e) => setAttachments((list) => list.map((x) => (x.file === a.file ? { ...x, description: e.target.value } : x)))} />
          </label>
          {a.media && !a.description && <p className="muted">Add a description for people who cannot see it.</p>}
        </div>
      ))}
      <div className="toolbar">
        <label>
          Visibility
          <select value={visibility} onChange={(e) => setVisibility(e.target.value)}>
            <option value="public">Public</option>
            <option value="unlisted">Quiet public</option>
            <option value="private">Followers</option>
            <option value="direct">Mentioned people only</option>
          </select>
        </label>
        <span className={left < 0 ? 'counter over' : 'counter'} aria-live="polite" aria-label="Characters left">
          {left}
        </span>
        <button type="submit" className="primary" disabled={busy || left < 0 || (text.trim() === '' && attachments.length === 0) || attachments.some((a) => !a.media)}>
          Post
        </button>
      </div>
      <FormError message={error} />
    </form>
  );
}

/** A poll: choices to vote for while it is open and not voted in, then its results. */
function PollView({ poll: initial }: { poll: SocialPoll }) {
  const { vote } = useSocialClient();
  const [poll, setPoll] = useState(initial);
  const [chosen, setChosen] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setPoll(initial), [initial]);
  const results = poll.voted || poll.expired;
  const total = poll.votes_count || 1;
  if (results)
    return (
      <ul className="poll" aria-label="Poll results">
        {poll.options.map((o, i) => (
          <li key={i}>
            <span>
              {o.title}
              {poll.own_votes?.includes(i) ? ' ✓' : ''}
            </span>{' '}
            <meter min={0} max={total} value={o.votes_count ?? 0} aria-label={o.title} /> <span className="muted">{Math.round(((o.votes_count ?? 0) / total) * 100)}%</span>
          </li>
        ))}
        <li className="muted">
          {poll.votes_count} {poll.votes_count === 1 ? 'vote' : 'votes'}
          {poll.expired ? ' · closed' : ''}
        </li>
      </ul>
    );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      setPoll(await vote(poll, chosen));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form className="poll" aria-label="Poll" onSubmit={(e) => void submit(e)}>
      {poll.options.map((o, i) => (
        <label key={i}>
          <input
            type={poll.multiple ? 'checkbox' : 'radio'}
            name={`poll-${poll.id}`}
            checked={chosen.includes(i)}
            onChange={(e) => setChosen(poll.multiple ? (e.target.checked ? [...chosen, i] : chosen.filter((c) => c !== i)) : [i])}
          />{' '}
          {o.title}
        </label>
      ))}
      <button type="submit" disabled={chosen.length === 0}>
        Vote
      </button>
      <FormError message={error} />
    </form>
  );
}

/** A status's media; sensitive ones stay hidden until asked for. */
function MediaList({ status }: { status: SocialStatus }) {
  const [shown, setShown] = useState(!status.sensitive);
  if (!shown)
    return (
      <button type="button" onClick={() => setShown(true)}>
        Show sensitive media
      </button>
    );
  return (
    <div className="media">
      {status.media_attachments!.map((m) =>
        m.type === 'image' || m.type === 'gifv' ? (
          <a key={m.id} href={m.url ?? undefined} target="_blank" rel="noreferrer">
            <img src={m.preview_url ?? m.url ?? ''} alt={m.description ?? ''} />
          </a>
        ) : (
          <a key={m.id} href={m.url ?? undefined} target="_blank" rel="noreferrer">
            {m.type} {m.description ? `(${m.description})` : ''}
          </a>
        ),
      )}
    </div>
  );
}

/** Where a status can lead: its thread, its author's profile. */
interface Navigate {
  onOpen?: (id: string) => void;
  onProfile?: (accountId: string) => void;
}

function StatusItem({ status, onOpen, onProfile }: { status: SocialStatus } & Navigate) {
  const { toggleFavourite } = useSocialClient();
  const shown = status.reblog ?? status;
  const [open, setOpen] = useState(false);
  return (
    <article className="status" aria-label={`Post by ${shown.account.display_name || shown.account.username}`} data-status-id={shown.id}>
      {status.reblog && <p className="muted">{status.account.display_name || status.account.username} boosted</p>}
      <header>
        <img src={shown.account.avatar} alt="" width={40} height={40} />
        {onProfile ? (
          <button type="button" className="link name" onClick={() => onProfile(shown.account.id)}>
            {shown.account.display_name || shown.account.username}
          </button>
        ) : (
          <span className="name">{shown.account.display_name || shown.account.username}</span>
        )}{' '}
        <span className="muted">@{shown.account.acct}</span>{' '}
        <time dateTime={shown.created_at}>{new Date(shown.created_at).toLocaleString()}</time>
      </header>
      {shown.spoiler_text ? (
        <p>
          <strong>{shown.spoiler_text}</strong>{' '}
          <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? 'Show less' : 'Show more'}
          </button>
        </p>
      ) : null}
      {/* Content is HTML the server formatted (local) or sanitized on receipt (remote). */}
      {(!shown.spoiler_text || open) && <div className="content" dangerouslySetInnerHTML={{ __html: shown.content }} />}
      {(shown.media_attachments?.length ?? 0) > 0 && <MediaList status={shown} />}
      {shown.poll && <PollView poll={shown.poll} />}
      <footer className="toolbar">
        <button type="button" aria-pressed={Boolean(shown.favourited)} onClick={() => void toggleFavourite(status)}>
          {shown.favourited ? 'Unfavourite' : 'Favourite'} ({shown.favourites_count})
        </button>
        {onOpen && (
          <button type="button" onClick={() => onOpen(shown.id)}>
            Thread ({shown.replies_count} {shown.replies_count === 1 ? 'reply' : 'replies'})
          </button>
        )}
      </footer>
    </article>
  );
}

/** A status with the posts above and below it, and a reply form. */
function Thread({ id, onClose, onOpen, onProfile }: { id: string; onClose: () => void; onOpen: (id: string) => void; onProfile: (accountId: string) => void }) {
  const { request } = useSocialClient();
  const [thread, setThread] = useState<{ ancestors: SocialStatus[]; status: SocialStatus; descendants: SocialStatus[] } | null>(null);
  const [reply, setReply] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const [status, context] = await Promise.all([request<SocialStatus>(`/api/v1/statuses/${id}`), request<{ ancestors: SocialStatus[]; descendants: SocialStatus[] }>(`/api/v1/statuses/${id}/context`)]);
      setThread({ status, ...context });
    } catch (err) {
      setError((err as Error).message);
    }
  }, [id, request]);
  useEffect(() => {
    void load();
  }, [load]);
  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!thread) return;
    setError(null);
    try {
      const mention = thread.status.account.acct === useSocialClient.getState().me?.acct ? '' : `@${thread.status.account.acct} `;
      await request('/api/v1/statuses', { method: 'POST', body: { status: `${mention}${reply}`, in_reply_to_id: thread.status.id, visibility: thread.status.visibility === 'public' ? 'public' : thread.status.visibility } });
      setReply('');
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="thread-title" className="thread">
      <h2 id="thread-title">Thread</h2>
      <button type="button" onClick={onClose}>
        Back
      </button>
      <FormError message={error} />
      {thread && (
        <>
          {thread.ancestors.map((s) => (
            <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
          ))}
          <div className="focused">
            <StatusItem status={thread.status} onProfile={onProfile} />
          </div>
          <form className="compose" onSubmit={(e) => void send(e)} aria-label="Reply">
            <label>
              Your reply
              <textarea value={reply} onChange={(e) => setReply(e.target.value)} rows={2} required />
            </label>
            <button type="submit" className="primary" disabled={reply.trim() === ''}>
              Reply
            </button>
          </form>
          {thread.descendants.map((s) => (
            <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
          ))}
        </>
      )}
    </section>
  );
}

/** An account's page: who they are, their numbers, follow or unfollow, and their posts. */
function Profile({ id, onClose, onOpen }: { id: string; onClose: () => void; onOpen: (id: string) => void }) {
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

function FollowSearch() {
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
          <input value={q} onChange={(e) => setQ(e.target.value)} required />
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

function Notifications() {
  const { notifications, loadNotifications, markNotificationsRead } = useSocialClient();
  useEffect(() => {
    void loadNotifications().then(() => markNotificationsRead());
  }, [loadNotifications, markNotificationsRead]);
  if (notifications.length === 0) return <Empty>No notifications yet.</Empty>;
  return (
    <ol className="notifications">
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
            {n.status && <div className="content muted" dangerouslySetInnerHTML={{ __html: (n.status.reblog ?? n.status).content }} />}
          </li>
        );
      })}
    </ol>
  );
}

/** The public timelines: this server's posts (local) or every post it knows (federated), older ones on request. */
function PublicTimeline({ local, onOpen, onProfile }: { local: boolean } & Navigate) {
  const { request } = useSocialClient();
  const [posts, setPosts] = useState<SocialStatus[]>([]);
  const [more, setMore] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (maxId?: string) => {
      try {
        const page = await request<SocialStatus[]>(`/api/v1/timelines/public?limit=20${local ? '&local=true' : ''}${maxId ? `&max_id=${maxId}` : ''}`);
        setPosts((list) => (maxId ? [...list, ...page] : page));
        setMore(page.length === 20);
      } catch (err) {
        setError((err as Error).message);
      }
    },
    [local, request],
  );
  useEffect(() => {
    void load();
  }, [load]);
  const title = local ? 'Local' : 'Federated';
  return (
    <section aria-labelledby="public-title">
      <h2 id="public-title">{title}</h2>
      <FormError message={error} />
      {posts.length === 0 ? <Empty>No public posts yet.</Empty> : posts.map((s) => <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />)}
      {more && posts.length > 0 && (
        <button type="button" onClick={() => void load(posts[posts.length - 1].id)}>
          Load older posts
        </button>
      )}
    </section>
  );
}

/** The signed-in client: compose, the home timeline kept live by the streaming API, notifications, and finding people. */
export function Client() {
  const { me, home, incoming, showIncoming, connectStream, signOut, error, live, unread } = useSocialClient();
  const [tab, setTab] = useState<'home' | 'local' | 'federated' | 'notifications'>('home');
  const [thread, setThread] = useState<string | null>(null);
  const [profile, setProfile] = useState<string | null>(null);
  const openThread = (id: string) => {
    setProfile(null);
    setThread(id);
  };
  useEffect(() => connectStream(), [connectStream]);
  return (
    <div className="social-client">
      <p className="toolbar">
        Signed in as <strong>@{me?.acct}</strong> <span className="muted">{live ? 'live' : 'connecting…'}</span>{' '}
        <button type="button" onClick={signOut}>
          Sign out of the client
        </button>
      </p>
      <Compose />
      <FormError message={error} />
      <div className="toolbar" role="group" aria-label="Timelines">
        <button type="button" aria-pressed={tab === 'home'} onClick={() => setTab('home')}>
          Home
        </button>
        <button type="button" aria-pressed={tab === 'local'} onClick={() => setTab('local')}>
          Local
        </button>
        <button type="button" aria-pressed={tab === 'federated'} onClick={() => setTab('federated')}>
          Federated
        </button>
        <button type="button" aria-pressed={tab === 'notifications'} onClick={() => setTab('notifications')}>
          Notifications{unread > 0 ? ` (${unread})` : ''}
        </button>
      </div>
      {profile ? (
        <Profile id={profile} onClose={() => setProfile(null)} onOpen={openThread} />
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
          {home.length === 0 ? <Empty>Nothing here yet: post something, or follow someone.</Empty> : home.map((s) => <StatusItem key={s.id} status={s} onOpen={openThread} onProfile={setProfile} />)}
        </section>
      ) : tab === 'local' || tab === 'federated' ? (
        <PublicTimeline key={tab} local={tab === 'local'} onOpen={openThread} onProfile={setProfile} />
      ) : (
        <section aria-labelledby="notifications-title">
          <h2 id="notifications-title">Notifications</h2>
          <Notifications />
        </section>
      )}
      <FollowSearch />
    </div>
  );
}

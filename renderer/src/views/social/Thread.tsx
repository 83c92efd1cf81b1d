import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useSocialClient, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem } from './Status.tsx';

/** Replies nest under the post they answer; deeper than this they continue flat, as Mastodon's web client keeps them readable. */
const MAX_DEPTH = 4;

/** The replies to `parent` among a thread's descendants (Mastodon gives them in reading order, depth first). */
function repliesTo(parent: string, descendants: SocialStatus[]): SocialStatus[] {
  return descendants.filter((s) => s.in_reply_to_id === parent);
}

/** One post's replies, each followed by its own, indented up to MAX_DEPTH. */
function Replies({
  parent,
  descendants,
  depth,
  onOpen,
  onProfile,
}: {
  parent: SocialStatus;
  descendants: SocialStatus[];
  depth: number;
  onOpen: (id: string) => void;
  onProfile: (accountId: string) => void;
}) {
  const replies = repliesTo(parent.id, descendants);
  if (replies.length === 0) return null;
  return (
    <ul
      className={depth < MAX_DEPTH ? 'replies nested' : 'replies'}
      aria-label={`Replies to ${parent.account.display_name || parent.account.username}`}
    >
      {replies.map((s) => (
        <li key={s.id}>
          <StatusItem status={s} onOpen={onOpen} onProfile={onProfile} />
          <Replies parent={s} descendants={descendants} depth={depth + 1} onOpen={onOpen} onProfile={onProfile} />
        </li>
      ))}
    </ul>
  );
}

/** A status with the posts above it, its replies nested below it, and a reply form. */
export function Thread({
  id,
  onClose,
  onOpen,
  onProfile,
}: {
  id: string;
  onClose: () => void;
  onOpen: (id: string) => void;
  onProfile: (accountId: string) => void;
}) {
  const { request } = useSocialClient();
  const [thread, setThread] = useState<{
    ancestors: SocialStatus[];
    status: SocialStatus;
    descendants: SocialStatus[];
  } | null>(null);
  const [reply, setReply] = useState('');
  const [error, setError] = useState<string | null>(null);
  const focused = useRef<HTMLDivElement>(null);
  // Opening a thread moves the focus (and the screen reader) to the post it is about.
  useEffect(() => {
    if (thread?.status.id === id) focused.current?.querySelector<HTMLElement>('article.status')?.focus();
  }, [thread?.status.id, id]);
  const load = useCallback(async () => {
    try {
      const [status, context] = await Promise.all([
        request<SocialStatus>(`/api/v1/statuses/${id}`),
        request<{ ancestors: SocialStatus[]; descendants: SocialStatus[] }>(`/api/v1/statuses/${id}/context`),
      ]);
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
      const mention =
        thread.status.account.acct === useSocialClient.getState().me?.acct ? '' : `@${thread.status.account.acct} `;
      await request('/api/v1/statuses', {
        method: 'POST',
        body: {
          status: `${mention}${reply}`,
          in_reply_to_id: thread.status.id,
          visibility: thread.status.visibility === 'public' ? 'public' : thread.status.visibility,
        },
      });
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
          <div className="focused" ref={focused}>
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
          <Replies
            parent={thread.status}
            descendants={thread.descendants}
            depth={1}
            onOpen={onOpen}
            onProfile={onProfile}
          />
          {/* Replies whose parent is not visible to this reader still show, at the end. */}
          {thread.descendants
            .filter(
              (s) =>
                s.in_reply_to_id !== thread.status.id && !thread.descendants.some((d) => d.id === s.in_reply_to_id),
            )
            .map((s) => (
              <StatusItem key={s.id} status={s} onOpen={onOpen} onProfile={onProfile} />
            ))}
        </>
      )}
    </section>
  );
}

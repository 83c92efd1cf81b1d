import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useSocialClient, type SocialStatus } from '../../stores/social-client.ts';
import { StatusItem } from './Status.tsx';

/** A status with the posts above and below it, and a reply form. */
export function Thread({ id, onClose, onOpen, onProfile }: { id: string; onClose: () => void; onOpen: (id: string) => void; onProfile: (accountId: string) => void }) {
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

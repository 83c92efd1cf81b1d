import { useEffect, useState, type FormEvent } from 'react';
import { FormError } from '../../../components/ui.tsx';
import { useSocialClient, type SocialAccount } from '../../../stores/social-client.ts';

/** What the signed-in user and another account are to each other (Mastodon's Relationship). */
export interface Relationship {
  id: string;
  following: boolean;
  requested: boolean;
  followed_by: boolean;
  blocking: boolean;
  muting: boolean;
  note: string;
}

type Change = 'follow' | 'unfollow' | 'mute' | 'unmute' | 'block' | 'unblock';

/**
 * Follow, mute and block another account, and undo each; blocking asks first (it also ends following both
 * ways). Every answer is the new relationship, handed to `onChange`.
 */
export function RelationshipActions({
  account,
  relationship,
  onChange,
}: {
  account: SocialAccount;
  relationship: Relationship;
  onChange: (r: Relationship) => void;
}) {
  const { request } = useSocialClient();
  const [confirmingBlock, setConfirmingBlock] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const change = async (what: Change) => {
    setBusy(true);
    setError(null);
    try {
      onChange(await request<Relationship>(`/api/v1/accounts/${account.id}/${what}`, { method: 'POST' }));
      setConfirmingBlock(false);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const r = relationship;
  const states = [
    r.followed_by && 'Follows you',
    r.requested && 'Follow request sent',
    r.muting && 'Muted',
    r.blocking && 'Blocked',
  ].filter(Boolean);
  return (
    <div className="relationship">
      {states.length > 0 && <p className="muted">{states.join(' · ')}</p>}
      <div className="toolbar" role="group" aria-label={`Your relationship with @${account.acct}`}>
        {!r.blocking && (
          <button
            type="button"
            className={r.following || r.requested ? '' : 'primary'}
            disabled={busy}
            onClick={() => void change(r.following || r.requested ? 'unfollow' : 'follow')}
          >
            {r.following ? 'Unfollow' : r.requested ? 'Cancel follow request' : 'Follow'}
          </button>
        )}
        <button
          type="button"
          disabled={busy}
          aria-label={`${r.muting ? 'Unmute' : 'Mute'} @${account.acct}`}
          onClick={() => void change(r.muting ? 'unmute' : 'mute')}
        >
          {r.muting ? 'Unmute' : 'Mute'}
        </button>
        {r.blocking ? (
          <button
            type="button"
            disabled={busy}
            aria-label={`Unblock @${account.acct}`}
            onClick={() => void change('unblock')}
          >
            Unblock
          </button>
        ) : (
          !confirmingBlock && (
            <button
              type="button"
              className="danger"
              disabled={busy}
              aria-label={`Block @${account.acct}…`}
              onClick={() => setConfirmingBlock(true)}
            >
              Block…
            </button>
          )
        )}
      </div>
      {confirmingBlock && (
        <div role="alertdialog" aria-label={`Block @${account.acct}?`} className="toolbar">
          <p>
            Block @{account.acct}? Neither of you will follow the other any more, they cannot see your posts, and you
            will not see theirs.
          </p>
          <button type="button" className="danger" disabled={busy} onClick={() => void change('block')}>
            Block
          </button>
          <button type="button" onClick={() => setConfirmingBlock(false)}>
            Cancel
          </button>
        </div>
      )}
      <FormError message={error} />
    </div>
  );
}

/** A note about the account that only the signed-in user sees (kept by their server). */
export function PrivateNote({
  account,
  relationship,
  onChange,
}: {
  account: SocialAccount;
  relationship: Relationship;
  onChange: (r: Relationship) => void;
}) {
  const { request } = useSocialClient();
  const [text, setText] = useState(relationship.note);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setText(relationship.note), [relationship.note]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      onChange(
        await request<Relationship>(`/api/v1/accounts/${account.id}/note`, { method: 'POST', body: { comment: text } }),
      );
      setSaved(true);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form className="private-note" aria-label="Private note" onSubmit={(e) => void save(e)}>
      <label>
        {`Private note about @${account.acct} (only you see it)`}
        <textarea
          rows={2}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setSaved(false);
          }}
        />
      </label>
      <p className="toolbar">
        <button type="submit" disabled={text === relationship.note}>
          Save note
        </button>
        {saved && (
          <span className="muted" role="status">
            Note saved.
          </span>
        )}
      </p>
      <FormError message={error} />
    </form>
  );
}

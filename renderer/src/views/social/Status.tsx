import { useEffect, useState, type FormEvent } from 'react';
import { FormError, Link } from '../../components/ui.tsx';
import { useSocialClient, type SocialPoll, type SocialStatus } from '../../stores/social-client.ts';
import { StatusActions } from './status/Actions.tsx';
import { LinkCard, QuotedPost } from './status/Embeds.tsx';
import { MediaList } from './status/Media.tsx';
import { useResource } from './use-resource.ts';
import { useReadingChoices } from './client-settings.ts';
import { accountPath, statusPath } from './routes.ts';
import { RelativeTime } from './RelativeTime.tsx';

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
            <meter min={0} max={total} value={o.votes_count ?? 0} aria-label={o.title} />{' '}
            <span className="muted">{Math.round(((o.votes_count ?? 0) / total) * 100)}%</span>
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
            onChange={(e) =>
              setChosen(poll.multiple ? (e.target.checked ? [...chosen, i] : chosen.filter((c) => c !== i)) : [i])
            }
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

/** Where a status can lead: its thread, its author's profile. */
export interface Navigate {
  onOpen?: (id: string) => void;
  onProfile?: (accountId: string) => void;
}

export function StatusItem({ status, onOpen }: { status: SocialStatus } & Navigate) {
  const { overrides } = useSocialClient();
  const original = status.reblog ?? status;
  // What the user did to this post anywhere in the client shows here too.
  const shown = { ...original, ...overrides[original.id] };
  // A filter that warns keeps the post behind its name until asked (the server leaves out those that hide).
  const warning = shown.filtered?.find((f) => f.filter.filter_action === 'warn');
  const [revealed, setRevealed] = useState(false);
  // The client's reading choices (Settings) decide how content warnings and sensitive media first show.
  const reading = useReadingChoices();
  const [open, setOpen] = useState(reading.expandWarnings);
  const [history, setHistory] = useState(false);
  if (shown.deleted) return null;
  if (warning && !revealed) {
    return (
      <article
        className="status filtered"
        tabIndex={-1}
        aria-label={`Filtered post by ${shown.account.display_name || shown.account.username}`}
        data-status-id={shown.id}
      >
        <p className="muted">
          Filtered: {warning.filter.title}{' '}
          <button type="button" onClick={() => setRevealed(true)}>
            Show anyway
          </button>
        </p>
      </article>
    );
  }
  return (
    // Focusable, so the keyboard can move between posts (j/k) and act on the one in focus.
    <article
      className="status"
      tabIndex={-1}
      aria-label={`Post by ${shown.account.display_name || shown.account.username}`}
      data-status-id={shown.id}
    >
      {status.reblog && <p className="muted">{status.account.display_name || status.account.username} boosted</p>}
      <header>
        <img src={shown.account.avatar} alt="" width={40} height={40} />
        <Link to={accountPath(shown.account.id)} className="name">
          {shown.account.display_name || shown.account.username}
        </Link>{' '}
        <span className="muted">@{shown.account.acct}</span>{' '}
        <Link to={statusPath(shown.id)} className="muted">
          <RelativeTime iso={shown.created_at} />
        </Link>
        {shown.edited_at && (
          <>
            {' '}
            <button
              type="button"
              className="link muted"
              aria-expanded={history}
              onClick={() => setHistory(!history)}
              title={`Edited ${new Date(shown.edited_at).toLocaleString()}`}
            >
              · edited
            </button>
          </>
        )}
      </header>
      {history && <EditHistory id={shown.id} />}
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
      {(shown.media_attachments?.length ?? 0) > 0 && (
        <MediaList
          status={
            shown.filtered?.some((f) => f.filter.filter_action === 'blur') ? { ...shown, sensitive: true } : shown
          }
          showSensitive={reading.showSensitive && !shown.filtered?.some((f) => f.filter.filter_action === 'blur')}
        />
      )}
      {shown.poll && <PollView poll={shown.poll} />}
      {shown.quote && <QuotedPost quote={shown.quote} onOpen={onOpen} />}
      {shown.card && !shown.quote && <LinkCard card={shown.card} />}
      {shown.in_reply_to_id && onOpen && (
        <p className="muted">
          <button type="button" className="link muted" onClick={() => onOpen(shown.id)}>
            In reply to {shown.in_reply_to_account_id === shown.account.id ? 'themself' : 'a post'}: show the
            conversation
          </button>
        </p>
      )}
      <StatusActions status={status} shown={shown} onOpen={onOpen} />
    </article>
  );
}

/** Every version of an edited post, newest first (Mastodon's status history). */
function EditHistory({ id }: { id: string }) {
  const { data: versions, error } = useResource<{ content: string; spoiler_text: string; created_at: string }[]>(
    `/api/v1/statuses/${id}/history`,
  );
  return (
    <section className="edit-history" aria-label="Edit history">
      <FormError message={error} />
      {versions && (
        <ol>
          {[...versions].reverse().map((v, i) => (
            <li key={v.created_at + i}>
              <time dateTime={v.created_at}>{new Date(v.created_at).toLocaleString()}</time>
              {i === versions.length - 1 ? ' (original)' : i === 0 ? ' (current)' : ''}
              {v.spoiler_text && <strong> {v.spoiler_text}</strong>}
              <div className="content" dangerouslySetInnerHTML={{ __html: v.content }} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

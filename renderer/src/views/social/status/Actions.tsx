import { useState } from 'react';
import { FormError } from '../../../components/ui.tsx';
import { desktopBridge } from '../../../desktop-bridge.ts';
import { useSocialClient, type SocialStatus } from '../../../stores/social-client.ts';
import { Icon } from './icons.tsx';

/** Puts a link on the clipboard: through the desktop app when there is one, else the browser's clipboard. */
async function copyLink(url: string): Promise<void> {
  const bridge = desktopBridge();
  if (bridge) await bridge.copyText(url);
  else await navigator.clipboard.writeText(url);
}

/**
 * What can be done with a post, as Mastodon's web client offers it: reply, boost, quote, favourite, bookmark,
 * share its link, and under "More" muting its conversation, pinning it, editing and deleting it. Each shows
 * at once and rolls back if the server refuses (the store's toggle).
 */
export function StatusActions({
  status,
  shown,
  onOpen,
}: {
  status: SocialStatus;
  shown: SocialStatus;
  onOpen?: (id: string) => void;
}) {
  const { toggle, me, startReply, startQuote } = useSocialClient();
  const [copied, setCopied] = useState<string | null>(null);
  const own = me !== null && shown.account.id === me.id;
  const involved = own || (shown.mentions ?? []).some((m) => m.id === me?.id);
  const canQuote =
    shown.quote_approval?.current_user === 'automatic' || shown.quote_approval?.current_user === 'manual';
  const share = async () => {
    try {
      await copyLink(shown.url ?? shown.uri);
      setCopied('Link copied');
    } catch {
      setCopied(`Copy this link: ${shown.url ?? shown.uri}`);
    }
  };
  return (
    <footer className="action-bar">
      <button
        type="button"
        data-action="reply"
        onClick={() => startReply(status)}
        aria-label={`Reply${shown.replies_count ? ` (${shown.replies_count})` : ''}`}
        title="Reply"
      >
        <Icon name="reply" />
        {shown.replies_count ? <span className="count">{shown.replies_count}</span> : null}
      </button>
      {/* Private and direct posts cannot be boosted by others (Mastodon refuses them). */}
      {(shown.visibility === 'public' || shown.visibility === 'unlisted') && (
        <button
          type="button"
          data-action="boost"
          aria-pressed={Boolean(shown.reblogged)}
          onClick={() => void toggle(status, 'reblog')}
          title={shown.reblogged ? 'Unboost' : 'Boost'}
        >
          <Icon name="boost" />
          <Counted label={shown.reblogged ? 'Unboost' : 'Boost'} count={shown.reblogs_count} />
        </button>
      )}
      {canQuote && (
        <button
          type="button"
          data-action="quote"
          onClick={() => startQuote(status)}
          aria-label="Quote"
          title={
            shown.quote_approval?.current_user === 'manual' ? 'Quote (the author approves quotes by hand)' : 'Quote'
          }
        >
          <Icon name="quote" />
        </button>
      )}
      <button
        type="button"
        data-action="favourite"
        aria-pressed={Boolean(shown.favourited)}
        onClick={() => void toggle(status, 'favourite')}
        title={shown.favourited ? 'Unfavourite' : 'Favourite'}
      >
        <Icon name="favourite" filled={Boolean(shown.favourited)} />
        <Counted label={shown.favourited ? 'Unfavourite' : 'Favourite'} count={shown.favourites_count} />
      </button>
      <button
        type="button"
        data-action="bookmark"
        aria-pressed={Boolean(shown.bookmarked)}
        onClick={() => void toggle(status, 'bookmark')}
        aria-label={shown.bookmarked ? 'Remove bookmark' : 'Bookmark'}
        title={shown.bookmarked ? 'Remove bookmark' : 'Bookmark'}
      >
        <Icon name="bookmark" filled={Boolean(shown.bookmarked)} />
      </button>
      <button type="button" data-action="share" onClick={() => void share()} aria-label="Share link" title="Share link">
        <Icon name="share" />
      </button>
      {onOpen && (
        <button type="button" data-action="thread" onClick={() => onOpen(shown.id)} aria-label="Thread" title="Thread">
          <Icon name="thread" />
        </button>
      )}
      {(involved || own) && (
        <details className="more-actions">
          <summary>More</summary>
          {involved && (
            <button
              type="button"
              data-action="mute"
              aria-pressed={Boolean(shown.muted)}
              onClick={() => void toggle(status, 'mute')}
            >
              {shown.muted ? 'Unmute conversation' : 'Mute conversation'}
            </button>
          )}
          {own && shown.visibility !== 'direct' && (
            <button
              type="button"
              data-action="pin"
              aria-pressed={Boolean(shown.pinned)}
              onClick={() => void toggle(status, 'pin')}
            >
              {shown.pinned ? 'Unpin from profile' : 'Pin on profile'}
            </button>
          )}
          {own && <OwnPostActions status={shown} />}
        </details>
      )}
      {copied && (
        <span className="muted" role="status">
          {copied}
        </span>
      )}
    </footer>
  );
}

/**
 * A button's name from its content, "Boost (3)", of which only the count shows beside the icon: the name
 * then contains what is seen (an aria-label that did not was an axe label-content-name-mismatch).
 */
function Counted({ label, count }: { label: string; count: number }) {
  // The whole name in one hidden run (hidden text is positioned apart, so pieces would gain spaces), the
  // figure shown beside the icon.
  return (
    <>
      <span className="visually-hidden">
        {label} ({count})
      </span>
      <span className="count" aria-hidden="true">
        {count}
      </span>
    </>
  );
}

/** Edit, delete, and delete and redraft (the text goes back to the compose form), for one's own posts. */
function OwnPostActions({ status }: { status: SocialStatus }) {
  const { startEdit, deleteStatus } = useSocialClient();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = (work: Promise<void>) => work.catch((err: Error) => setError(err.message));
  if (confirming)
    return (
      <span role="group" aria-label="Delete this post?">
        Delete this post?{' '}
        <button type="button" onClick={() => void run(deleteStatus(status, false))}>
          Delete
        </button>{' '}
        <button type="button" onClick={() => void run(deleteStatus(status, true))}>
          Delete and redraft
        </button>{' '}
        <button type="button" onClick={() => setConfirming(false)}>
          Keep it
        </button>
        <FormError message={error} />
      </span>
    );
  return (
    <>
      <button type="button" data-action="edit" onClick={() => void run(startEdit(status))}>
        Edit
      </button>
      <button type="button" data-action="delete" onClick={() => setConfirming(true)}>
        Delete…
      </button>
      <FormError message={error} />
    </>
  );
}

import type { SocialStatus } from '../../../stores/social-client.ts';

/** What each quote state means to the reader (Mastodon 4.5's states), when the quoted post is not shown. */
const QUOTE_STATES: Record<string, string> = {
  pending: 'The author has not approved this quote yet.',
  rejected: 'The author declined to be quoted.',
  revoked: 'The author removed this quote.',
  deleted: 'The quoted post was deleted.',
  unauthorized: 'You cannot see the quoted post.',
  blocked_account: 'You blocked the author of the quoted post.',
  blocked_domain: 'You blocked the server of the quoted post.',
  muted_account: 'You muted the author of the quoted post.',
};

/** A quoted post inside the one quoting it, or why it is not shown. */
export function QuotedPost({
  quote,
  onOpen,
}: {
  quote: NonNullable<SocialStatus['quote']>;
  onOpen?: (id: string) => void;
}) {
  const quoted = quote.quoted_status;
  if (quote.state !== 'accepted' || !quoted)
    return <p className="quote muted">{QUOTE_STATES[quote.state] ?? 'The quoted post is not available.'}</p>;
  return (
    <blockquote
      className="quote"
      aria-label={`Quoted post by ${quoted.account.display_name || quoted.account.username}`}
    >
      <p>
        <strong>{quoted.account.display_name || quoted.account.username}</strong>{' '}
        <span className="muted">@{quoted.account.acct}</span>
      </p>
      {quoted.spoiler_text ? (
        <p className="muted">{quoted.spoiler_text}</p>
      ) : (
        <div className="content" dangerouslySetInnerHTML={{ __html: quoted.content }} />
      )}
      {onOpen && (
        <button type="button" className="link" onClick={() => onOpen(quoted.id)}>
          Open the quoted post
        </button>
      )}
    </blockquote>
  );
}

/** A link's preview card, when the server made one. */
export function LinkCard({ card }: { card: NonNullable<SocialStatus['card']> }) {
  return (
    <a className="link-card" href={card.url} target="_blank" rel="noreferrer noopener">
      {card.image && <img src={card.image} alt="" />}
      <span>
        <span className="muted">{card.provider_name || new URL(card.url).host}</span>
        <strong>{card.title}</strong>
        {card.description && <span className="muted">{card.description}</span>}
      </span>
    </a>
  );
}

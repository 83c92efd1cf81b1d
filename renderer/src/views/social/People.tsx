import { Empty, FormError, Link } from '../../components/ui.tsx';
import type { SocialAccount } from '../../stores/social-client.ts';
import { useResource } from './use-resource.ts';
import { accountPath } from './routes.ts';

/**
 * The people one has decided about: follow requests waiting for an answer (a locked account's), and the
 * accounts one mutes or blocks, each with the way back.
 */
export function People({ onProfile }: { onProfile: (id: string) => void }) {
  return (
    <section aria-labelledby="people-title">
      <h2 id="people-title">People</h2>
      <AccountList
        title="Follow requests"
        path="/api/v1/follow_requests"
        empty="No one is waiting: people who ask to follow you (when your account is locked) show up here."
        actions={[
          { label: 'Accept', path: (a) => `/api/v1/follow_requests/${a.id}/authorize` },
          { label: 'Reject', path: (a) => `/api/v1/follow_requests/${a.id}/reject` },
        ]}
        onProfile={onProfile}
      />
      <AccountList
        title="Muted"
        path="/api/v1/mutes"
        empty="You mute no one."
        actions={[{ label: 'Unmute', path: (a) => `/api/v1/accounts/${a.id}/unmute` }]}
        onProfile={onProfile}
      />
      <AccountList
        title="Blocked"
        path="/api/v1/blocks"
        empty="You block no one."
        actions={[{ label: 'Unblock', path: (a) => `/api/v1/accounts/${a.id}/unblock` }]}
        onProfile={onProfile}
      />
    </section>
  );
}

interface AccountAction {
  label: string;
  path: (account: SocialAccount) => string;
}

function AccountList({
  title,
  path,
  empty,
  actions,
  onProfile,
}: {
  title: string;
  path: string;
  empty: string;
  actions: AccountAction[];
  onProfile: (id: string) => void;
}) {
  const { data: accounts, error, act, request } = useResource<SocialAccount[]>(`${path}?limit=80`);
  return (
    <section aria-label={title}>
      <h3>{title}</h3>
      <FormError message={error} />
      {accounts === null ? null : accounts.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <ul aria-label={title}>
          {accounts.map((a) => (
            <li key={a.id}>
              <Link to={accountPath(a.id)}>{a.display_name || a.username}</Link>{' '}
              <span className="muted">@{a.acct}</span>{' '}
              {actions.map((action) => (
                <button
                  key={action.label}
                  type="button"
                  aria-label={`${action.label} @${a.acct}`}
                  onClick={() => void act(() => request(action.path(a), { method: 'POST' }))}
                >
                  {action.label}
                </button>
              ))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { ErrorState, Loading } from '../components/ui.tsx';
import { useSocialClient } from '../stores/social-client.ts';
import { Client } from './social/Client.tsx';
import { FirstRun } from './social/FirstRun.tsx';
import { InstanceFacts } from './social/InstanceFacts.tsx';

interface SocialSetup {
  hasAccounts: boolean;
  publicUrl: string;
  federating: boolean;
}

/** The Social tab: the first-run profile, then a Mastodon client signed in through OAuth like any app. */
export function SocialView() {
  const [setup, setSetup] = useState<SocialSetup | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { token, me, signIn, completeSignIn, restore, error: clientError } = useSocialClient();
  const load = () => {
    setError(null);
    api<SocialSetup>('/social/setup')
      .then(setSetup)
      .catch((e: Error) => setError(e.message));
  };
  useEffect(() => {
    load();
    const query = new URLSearchParams(location.search);
    void completeSignIn(query).then((handled) => {
      // The code is spent: keep it out of the address bar and history.
      if (handled) history.replaceState(null, '', '/ui/social');
      else void restore();
    });
  }, [completeSignIn, restore]);
  return (
    <section aria-labelledby="social-title" className="view">
      <h1 id="social-title">Social</h1>
      {error && <ErrorState message={error} onRetry={load} />}
      {!error && !setup && <Loading />}
      {setup && !setup.hasAccounts && (
        <FirstRun publicUrl={setup.publicUrl} federating={setup.federating} onCreated={load} />
      )}
      {setup && !token && <SignInChoice hasProfile={setup.hasAccounts} onSignIn={(server) => void signIn(server)} />}
      {clientError && !me && <ErrorState message={clientError} />}
      {token && me && <Client />}
      <details>
        <summary>About this server</summary>
        <InstanceFacts />
      </details>
    </section>
  );
}

/**
 * Signing the client in: to this Homeport's profile, or (a general Mastodon client) to an account on any
 * other Mastodon-compatible server, authorized on that server's own page.
 */
function SignInChoice({ hasProfile, onSignIn }: { hasProfile: boolean; onSignIn: (server?: string) => void }) {
  const [server, setServer] = useState('');
  const other = (e: FormEvent) => {
    e.preventDefault();
    onSignIn(server);
  };
  return (
    <div className="sign-in-client">
      {hasProfile && (
        <>
          <p>
            Sign in to your profile to read and post. Homeport’s client signs in like any Mastodon app (OAuth), so you
            authorize it on the server’s own page.
          </p>
          <button type="button" className="primary" onClick={() => onSignIn()}>
            Sign in to the social client
          </button>
        </>
      )}
      <form aria-label="Sign in to another server" onSubmit={other}>
        <p>
          Or use the client with an account on another server (Mastodon, GoToSocial, Akkoma…): its sign-in page opens,
          and the token is kept for that server only.
        </p>
        <label>
          Server address
          <input
            value={server}
            onChange={(e) => setServer(e.target.value)}
            placeholder="mastodon.social"
            autoComplete="url"
            required
          />
        </label>
        <button type="submit">Sign in there</button>
      </form>
    </div>
  );
}

import { useState, type FormEvent } from 'react';
import { FormError } from '../components/ui.tsx';
import { useSession } from '../stores/session.ts';

export function SignIn() {
  const { signIn, error } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    await signIn(username, password);
    setBusy(false);
  };
  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Homeport</h1>
        <p className="muted">
          Use the event-log admin account (admin / changeit on a new install) or the social server's owner account.
        </p>
        <label>
          User name
          <input
            name="username"
            autoComplete="username"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            required
            autoFocus
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </label>
        <FormError message={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Shown after signing in with the public default password: nothing else is reachable until it is changed. */
export function ChangeDefaultPassword() {
  const { changeDefaultPassword, signOut, error, user } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (next !== again) {
      setMismatch('The two new passwords differ');
      return;
    }
    setMismatch(null);
    setBusy(true);
    await changeDefaultPassword(current, next);
    setBusy(false);
  };
  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="change-title">
        <h1 id="change-title">Change the default password</h1>
        <p className="muted">
          {user?.name} still has the password every new install starts with (<code>changeit</code>). Anyone who can
          reach this server — another account on this computer, or a web page open in your browser — could sign in with
          it. Choose your own before going on; event-log clients that use this account need the new one too.
        </p>
        <label>
          Current password
          <input
            name="current-password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            required
            autoFocus
          />
        </label>
        <label>
          New password
          <input
            name="new-password"
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={next}
            onChange={(e) => setNext(e.target.value)}
            required
          />
        </label>
        <label>
          New password again
          <input
            name="new-password-again"
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={again}
            onChange={(e) => setAgain(e.target.value)}
            required
          />
        </label>
        <FormError message={mismatch ?? error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </form>
    </main>
  );
}

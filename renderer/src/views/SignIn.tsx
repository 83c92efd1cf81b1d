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
        <p className="muted">Use the event-log admin account (admin / changeit on a new install) or the social server's owner account.</p>
        <label>
          User name
          <input name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required autoFocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        <FormError message={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

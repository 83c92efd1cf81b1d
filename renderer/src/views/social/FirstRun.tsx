import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.ts';
import { FormError } from '../../components/ui.tsx';
import { navigate } from '../../stores/router.ts';

/** No social account yet: the owner's profile, made here instead of with the CLI. */
export function FirstRun({
  publicUrl,
  federating,
  onCreated,
}: {
  publicUrl: string;
  federating: boolean;
  onCreated: () => void;
}) {
  const [form, setForm] = useState({ username: '', displayName: '', email: '', password: '', note: '' });
  const [error, setError] = useState<string | null>(null);
  const [avatar, setAvatar] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof form) => ({
    name,
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('/social/setup', {
        method: 'POST',
        body: { ...form, displayName: form.displayName || undefined, note: form.note || undefined },
      });
      // The picture last: a refused one leaves the profile made, and can be chosen again in the profile editor.
      if (avatar) {
        try {
          await api('/social/setup/avatar', { method: 'PUT', body: avatar });
        } catch (err) {
          setError(
            `${(err as Error).message}. Your profile was created; choose another picture later in Edit profile.`,
          );
          setTimeout(onCreated, 4000);
          return;
        }
      }
      onCreated();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="first-run" onSubmit={(e) => void submit(e)} aria-labelledby="first-run-title">
      <h2 id="first-run-title">Create your profile</h2>
      <p>
        This is your own fediverse home. Your profile will be{' '}
        <code>
          @{form.username || 'you'}@{new URL(publicUrl).host}
        </code>
        .{' '}
        {federating
          ? 'Other servers can find you at this address; '
          : 'For now only this computer can reach it: to federate with other servers, start Homeport with a public https address (--public-url), then '}
        <a
          href="/ui/server#federation-check-title"
          onClick={(e) => {
            e.preventDefault();
            navigate('/ui/server');
          }}
        >
          {federating ? 'check that they can (the federation self-check).' : 'check it with the federation self-check.'}
        </a>
      </p>
      <label>
        Username
        <input {...field('username')} required maxLength={30} pattern="[A-Za-z0-9_]+" autoComplete="username" />
      </label>
      <label>
        Display name
        <input {...field('displayName')} maxLength={30} />
      </label>
      <label>
        E-mail address
        <input {...field('email')} type="email" required autoComplete="email" />
      </label>
      <label>
        Password
        <input
          {...field('password')}
          type="password"
          required
          minLength={8}
          maxLength={72}
          autoComplete="new-password"
        />
      </label>
      <label>
        Profile picture <span className="muted">(optional; JPEG, PNG, GIF or WebP up to 8 MB)</span>
        <input
          type="file"
          accept="image/jpeg,image/png,image/gif,image/webp"
          onChange={(e) => setAvatar(e.target.files?.[0] ?? null)}
        />
      </label>
      <label>
        Bio
        <textarea {...field('note')} maxLength={500} rows={3} />
      </label>
      <FormError message={error} />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create profile'}
      </button>
    </form>
  );
}

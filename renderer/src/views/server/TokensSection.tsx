import { useEffect, useState, type FormEvent } from 'react';
import { Empty, ErrorState, FormFooter, formatTime, Notice, TableHead, useAction } from '../../components/ui.tsx';
import { useTokens } from '../../stores/tokens.ts';
import { useUsers } from '../../stores/users.ts';

/** Access tokens gRPC clients send as `{ bearerToken }`: issue one for a user (shown once), list, revoke. */
export function TokensSection() {
  const { tokens, error, load, create, revoke } = useTokens();
  const users = useUsers((s) => s.users);
  const [user, setUser] = useState('');
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const { busy, error: formError, setError, run } = useAction();
  useEffect(() => {
    void load();
  }, [load]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const owner = user || users?.[0]?.name;
    if (!owner) return setError('Choose a user');
    const expiresInDays = days.trim() === '' ? undefined : Number(days);
    await run(async () => setIssued(await create({ user: owner, name: name.trim() || undefined, expiresInDays })));
  };

  return (
    <section aria-labelledby="tokens-title">
      <div className="section-header">
        <h2 id="tokens-title">Access tokens</h2>
      </div>
      {issued && (
        <Notice>
          New token, shown only now: <code data-testid="issued-token">{issued}</code>
        </Notice>
      )}
      <form className="form" onSubmit={submit} noValidate aria-label="New access token">
        <div className="form-grid">
          <label>
            User
            <select value={user} onChange={(e) => setUser(e.target.value)}>
              {(users ?? []).map((u) => (
                <option key={u.name}>{u.name}</option>
              ))}
            </select>
          </label>
          <label>
            Label
            <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoComplete="off" />
          </label>
          <label>
            Expires in days (empty: never)
            <input value={days} onChange={(e) => setDays(e.target.value)} inputMode="numeric" />
          </label>
        </div>
        <FormFooter error={formError}>
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create token'}
          </button>
        </FormFooter>
      </form>
      {error ? (
        <ErrorState message={error} onRetry={() => void load()} />
      ) : !tokens || tokens.length === 0 ? (
        <Empty>No tokens.</Empty>
      ) : (
        <table className="table" aria-label="Access tokens">
          <TableHead
            columns={[
              'Token',
              'User',
              'Label',
              'Created',
              'Expires',
              { label: <span className="visually-hidden">Actions</span> },
            ]}
          />
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <code>{t.id}</code>
                </th>
                <td>{t.user}</td>
                <td>{t.name}</td>
                <td className="nowrap">{formatTime(t.createdAt)}</td>
                <td className="nowrap">{t.expiresAt === null ? 'never' : formatTime(t.expiresAt)}</td>
                <td className="row-actions">
                  <button
                    type="button"
                    className="danger"
                    onClick={() => void revoke(t.id).catch((err: Error) => setError(err.message))}
                    aria-label={`Revoke token ${t.id}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

import { useEffect, useState, type FormEvent } from 'react';
import {
  Dialog,
  Empty,
  ErrorState,
  Field,
  FormFooter,
  formatTime,
  Loading,
  Notice,
  TableHead,
  useAction,
} from '../../components/ui.tsx';
import { useUsers } from '../../stores/users.ts';

function AddUserForm({ onDone }: { onDone: (name: string) => void }) {
  const add = useUsers((s) => s.add);
  const [name, setName] = useState('');
  const [fullName, setFullName] = useState('');
  const [password, setPassword] = useState('');
  const [groups, setGroups] = useState('');
  const { busy, error, setError, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!name.trim() || !password) {
      setError('A user needs a name and a password');
      return;
    }
    await run(async () => {
      await add({
        name: name.trim(),
        password,
        fullName: fullName.trim() || undefined,
        groups: groups
          .split(',')
          .map((g) => g.trim())
          .filter(Boolean),
      });
      onDone(name.trim());
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="form-grid">
        <label>
          User name
          <input value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" required autoFocus />
        </label>
        <label>
          Full name
          <input value={fullName} onChange={(e) => setFullName(e.target.value)} autoComplete="off" />
        </label>
        <label>
          Password
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
            required
          />
        </label>
        <Field label="Groups" help="Comma separated. $admins may do anything; $ops may manage subscriptions.">
          {(p) => (
            <input
              {...p}
              value={groups}
              onChange={(e) => setGroups(e.target.value)}
              placeholder="$admins, $ops or your own"
            />
          )}
        </Field>
      </div>
      <FormFooter error={error}>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add user'}
        </button>
      </FormFooter>
    </form>
  );
}

function PasswordForm({ name, onDone, onCancel }: { name: string; onDone: () => void; onCancel: () => void }) {
  const change = useUsers((s) => s.changePassword);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, setError, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!password) return setError('Enter a new password');
    if (password !== repeat) return setError('The two passwords differ');
    await run(async () => {
      await change(name, password);
      onDone();
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <label>
        New password
        <input
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
          autoFocus
        />
      </label>
      <label>
        Repeat it
        <input type="password" value={repeat} onChange={(e) => setRepeat(e.target.value)} autoComplete="new-password" />
      </label>
      <FormFooter error={error} onCancel={onCancel}>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Change password'}
        </button>
      </FormFooter>
    </form>
  );
}

/** Event-log accounts: the user names and passwords TCP clients connect with. */
export function UsersSection() {
  const { users, loading, error, load, remove } = useUsers();
  const [adding, setAdding] = useState(false);
  const [passwordFor, setPasswordFor] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section aria-labelledby="users-title">
      <div className="section-header">
        <h2 id="users-title">Event-log users</h2>
        <button type="button" onClick={() => setAdding(true)}>
          Add user
        </button>
      </div>
      {notice && <Notice>{notice}</Notice>}
      {users
        ?.filter((u) => u.defaultPassword && !u.disabled)
        .map((u) => (
          <Notice kind="warn" key={`default-${u.name}`}>
            <span data-testid={`default-password-${u.name}`}>
              <strong>{u.name}</strong> still has the password every new install starts with (<code>changeit</code>
              ): anyone who can reach the event-log ports can sign in as {u.name}.{' '}
            </span>
            <button
              type="button"
              onClick={() => setPasswordFor(u.name)}
              aria-label={`Change it now: the password of ${u.name}`}
            >
              Change it now
            </button>
          </Notice>
        ))}
      {error ? (
        <ErrorState message={error} onRetry={() => void load()} />
      ) : loading || !users ? (
        <Loading />
      ) : users.length === 0 ? (
        <Empty>No users.</Empty>
      ) : (
        <table className="table" aria-label="Event-log users">
          <TableHead
            columns={[
              'User',
              'Full name',
              'Groups',
              'Created',
              { label: <span className="visually-hidden">Actions</span> },
            ]}
          />
          <tbody>
            {users.map((u) => (
              <tr key={u.name}>
                <th scope="row">
                  {u.name} {u.disabled && <span className="badge badge-bad">disabled</span>}
                  {u.defaultPassword && !u.disabled && <span className="badge badge-bad">default password</span>}
                </th>
                <td>{u.fullName}</td>
                <td>{u.groups.length ? u.groups.join(', ') : <span className="muted">none</span>}</td>
                <td className="nowrap">{formatTime(u.createdAt)}</td>
                <td className="row-actions">
                  <button
                    type="button"
                    onClick={() => setPasswordFor(u.name)}
                    aria-label={`Change password of ${u.name}`}
                  >
                    Change password
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      setRemoveError(null);
                      setRemoving(u.name);
                    }}
                    aria-label={`Remove ${u.name}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Dialog open={adding} title="Add an event-log user" onClose={() => setAdding(false)} wide>
        {adding && (
          <AddUserForm
            onDone={(name) => {
              setAdding(false);
              setNotice(`Added user ${name}.`);
            }}
          />
        )}
      </Dialog>
      <Dialog
        open={passwordFor !== null}
        title={`Change the password of ${passwordFor ?? ''}`}
        onClose={() => setPasswordFor(null)}
      >
        {passwordFor && (
          <PasswordForm
            name={passwordFor}
            onDone={() => {
              setNotice(`Changed the password of ${passwordFor}.`);
              setPasswordFor(null);
            }}
            onCancel={() => setPasswordFor(null)}
          />
        )}
      </Dialog>
      <Dialog open={removing !== null} title={`Remove user ${removing ?? ''}`} onClose={() => setRemoving(null)}>
        <p>
          <strong>{removing}</strong> will no longer be able to sign in. Streams whose ACL names this user keep the
          name; nobody else gets their access.
        </p>
        <FormFooter error={removeError} onCancel={() => setRemoving(null)}>
          <button
            type="button"
            className="danger"
            onClick={() => {
              const name = removing!;
              remove(name).then(
                () => {
                  setRemoving(null);
                  setNotice(`Removed user ${name}.`);
                },
                (err: Error) => setRemoveError(err.message),
              );
            }}
          >
            Remove user
          </button>
        </FormFooter>
      </Dialog>
    </section>
  );
}

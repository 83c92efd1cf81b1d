import { useEffect, useState, type FormEvent } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';

interface Credentials {
  display_name: string;
  locked: boolean;
  source: { note: string; fields: { name: string; value: string }[] };
}

/** Mastodon allows four profile fields. */
const MAX_FIELDS = 4;

/** One's own profile as written (the bio and fields as entered, not as shown), saved with update_credentials. */
export function ProfileEditor({ onDone }: { onDone: () => void }) {
  const { request, restore } = useSocialClient();
  const [name, setName] = useState('');
  const [note, setNote] = useState('');
  const [locked, setLocked] = useState(false);
  const [fields, setFields] = useState<{ name: string; value: string }[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request<Credentials>('/api/v1/accounts/verify_credentials')
      .then((me) => {
        setName(me.display_name);
        setNote(me.source.note);
        setLocked(me.locked);
        setFields(me.source.fields.map((f) => ({ name: f.name, value: f.value })));
        setLoaded(true);
      })
      .catch((err: Error) => setError(err.message));
  }, [request]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const kept = fields.filter((f) => f.name.trim() || f.value.trim());
      await request('/api/v1/accounts/update_credentials', { method: 'PATCH', body: { display_name: name, note, locked, fields_attributes: kept.length ? kept : '' } });
      await restore();
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const setField = (i: number, patch: Partial<{ name: string; value: string }>) => setFields(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  if (!loaded) return <FormError message={error} />;
  return (
    <form aria-label="Edit profile" onSubmit={(e) => void save(e)}>
      <label>
        Display name
        <input value={name} maxLength={30} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Bio
        <textarea value={note} maxLength={500} rows={3} onChange={(e) => setNote(e.target.value)} />
      </label>
      <label>
        <input type="checkbox" checked={locked} onChange={(e) => setLocked(e.target.checked)} /> Approve followers by hand (a locked account)
      </label>
      <fieldset>
        <legend>Profile fields</legend>
        {fields.map((f, i) => (
          <div key={i} className="toolbar">
            <label>
              Label {i + 1}
              <input value={f.name} maxLength={255} onChange={(e) => setField(i, { name: e.target.value })} />
            </label>
            <label>
              Content {i + 1}
              <input value={f.value} maxLength={255} onChange={(e) => setField(i, { value: e.target.value })} />
            </label>
            <button type="button" onClick={() => setFields(fields.filter((_, j) => j !== i))} aria-label={`Remove field ${i + 1}`}>
              Remove
            </button>
          </div>
        ))}
        {fields.length < MAX_FIELDS && (
          <button type="button" onClick={() => setFields([...fields, { name: '', value: '' }])}>
            Add a field
          </button>
        )}
      </fieldset>
      <div className="toolbar">
        <button type="submit" className="primary">
          Save profile
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormError message={error} />
    </form>
  );
}

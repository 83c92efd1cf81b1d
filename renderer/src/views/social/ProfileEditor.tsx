import { useEffect, useState, type FormEvent } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';

interface Credentials {
  display_name: string;
  locked: boolean;
  avatar: string;
  header: string;
  avatar_description?: string;
  header_description?: string;
  source: { note: string; fields: { name: string; value: string }[] };
}

type ImageField = 'avatar' | 'header';
const IMAGE_FIELDS: readonly ImageField[] = ['avatar', 'header'];
/** What each picture is called here, and the size the server crops it to (as Mastodon). */
const IMAGE_LABELS: Record<ImageField, { label: string; size: string }> = {
  avatar: { label: 'Profile picture', size: '400×400' },
  header: { label: 'Header image', size: '1500×500' },
};
/** A picture as chosen: a new file (null: keep the current one), what is shown, and its description. */
interface ImageChoice {
  file: File | null;
  shown: string;
  description: string;
}
const EMPTY_CHOICE: ImageChoice = { file: null, shown: '', description: '' };
/** The server's limit for profile pictures (Mastodon: 8 MB); refused here before uploading. */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

/** Mastodon allows four profile fields. */
const MAX_FIELDS = 4;

/** One's own profile as written (the bio and fields as entered, not as shown), saved with update_credentials. */
export function ProfileEditor({ onDone }: { onDone: () => void }) {
  const { request, restore } = useSocialClient();
  const [name, setName] = useState('');
  const [note, setNote] = useState('');
  const [locked, setLocked] = useState(false);
  const [fields, setFields] = useState<{ name: string; value: string }[]>([]);
  const [images, setImages] = useState<Record<ImageField, ImageChoice>>({ avatar: EMPTY_CHOICE, header: EMPTY_CHOICE });
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    request<Credentials>('/api/v1/accounts/verify_credentials')
      .then((me) => {
        setName(me.display_name);
        setNote(me.source.note);
        setLocked(me.locked);
        setFields(me.source.fields.map((f) => ({ name: f.name, value: f.value })));
        setImages({
          avatar: { file: null, shown: me.avatar, description: me.avatar_description ?? '' },
          header: { file: null, shown: me.header, description: me.header_description ?? '' },
        });
        setLoaded(true);
      })
      .catch((err: Error) => setError(err.message));
  }, [request]);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const kept = fields.filter((f) => f.name.trim() || f.value.trim());
      await request('/api/v1/accounts/update_credentials', {
        method: 'PATCH',
        body: {
          display_name: name,
          note,
          locked,
          fields_attributes: kept.length ? kept : '',
          avatar_description: images.avatar.description,
          header_description: images.header.description,
        },
      });
      // New pictures go as files (multipart), once the text is accepted.
      const files = new FormData();
      for (const field of IMAGE_FIELDS) if (images[field].file) files.append(field, images[field].file!);
      if ([...files.keys()].length > 0)
        await request('/api/v1/accounts/update_credentials', { method: 'PATCH', body: files });
      await restore();
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const setField = (i: number, patch: Partial<{ name: string; value: string }>) =>
    setFields(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
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
        <input type="checkbox" checked={locked} onChange={(e) => setLocked(e.target.checked)} /> Approve followers by
        hand (a locked account)
      </label>
      {IMAGE_FIELDS.map((field) => (
        <ImagePicker
          key={field}
          field={field}
          choice={images[field]}
          onChange={(choice) => setImages({ ...images, [field]: choice })}
        />
      ))}
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
            <button
              type="button"
              onClick={() => setFields(fields.filter((_, j) => j !== i))}
              aria-label={`Remove field ${i + 1}`}
            >
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

/** One profile picture: the current one (or the new one's preview), a file to replace it, and its description. */
function ImagePicker({
  field,
  choice,
  onChange,
}: {
  field: ImageField;
  choice: ImageChoice;
  onChange: (choice: ImageChoice) => void;
}) {
  const { label, size } = IMAGE_LABELS[field];
  const [problem, setProblem] = useState<string | null>(null);
  // A chosen file's preview address is freed once another replaces it or the form closes.
  const preview = choice.file ? choice.shown : null;
  useEffect(
    () => () => {
      if (preview) URL.revokeObjectURL(preview);
    },
    [preview],
  );
  const pick = (file: File | undefined) => {
    setProblem(null);
    if (!file) return;
    if (file.size > MAX_IMAGE_BYTES) return setProblem(`${file.name} is larger than 8 MB`);
    onChange({ ...choice, file, shown: URL.createObjectURL(file) });
  };
  return (
    <fieldset className={`image-picker ${field}`}>
      <legend>{label}</legend>
      {choice.shown && (
        <img
          src={choice.shown}
          alt={choice.description || `${label} (no description)`}
          className={field === 'avatar' ? 'avatar-preview' : 'header-preview'}
        />
      )}
      <label>
        Choose a new {label.toLowerCase()} <span className="muted">(JPEG, PNG, GIF or WebP, cropped to {size})</span>
        <input
          type="file"
          accept="image/jpeg,image/png,image/gif,image/webp"
          onChange={(e) => pick(e.target.files?.[0])}
        />
      </label>
      <label>
        {label} description
        <input
          value={choice.description}
          maxLength={1500}
          onChange={(e) => onChange({ ...choice, description: e.target.value })}
          placeholder="For people who cannot see it"
        />
      </label>
      <FormError message={problem} />
    </fieldset>
  );
}

import { useState, type FormEvent } from 'react';
import { FormError, Loading } from '../../components/ui.tsx';
import { useSocialClient } from '../../stores/social-client.ts';
import { useReadingChoices, type CredentialAccount, type PostingDefaults } from './client-settings.ts';
import { useResource } from './use-resource.ts';

/** The user's preferences: posting defaults as their server keeps them, and this client's own reading choices. */
export function Settings() {
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <PostingDefaultsForm />
      <ReadingChoicesForm />
    </section>
  );
}

/** Read fresh from verify_credentials (another app may have changed them), saved with update_credentials. */
function PostingDefaultsForm() {
  const { data: account, error: loadError } = useResource<CredentialAccount>('/api/v1/accounts/verify_credentials');
  const { data: languages } = useResource<{ code: string; name: string }[]>('/api/v1/instance/languages');
  if (loadError) return <FormError message={loadError} />;
  if (!account) return <Loading />;
  return <PostingDefaultsEditor source={account.source ?? {}} languages={languages ?? []} />;
}

function PostingDefaultsEditor({
  source,
  languages,
}: {
  source: Partial<PostingDefaults>;
  languages: { code: string; name: string }[];
}) {
  const { request } = useSocialClient();
  const [privacy, setPrivacy] = useState(source.privacy ?? 'public');
  const [sensitive, setSensitive] = useState(source.sensitive ?? false);
  const [language, setLanguage] = useState(source.language ?? '');
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const edited =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setSaved(false);
    };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await request<CredentialAccount>('/api/v1/accounts/update_credentials', {
        method: 'PATCH',
        body: { source: { privacy, sensitive, language } },
      });
      // The compose form starts from the signed-in account's defaults: it follows at once.
      useSocialClient.setState({ me });
      setSaved(true);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form aria-labelledby="posting-title" className="settings" onSubmit={(e) => void save(e)}>
      <h3 id="posting-title">Posting</h3>
      <p className="muted">Kept by your server: every app you post from starts from these.</p>
      <label>
        Default visibility
        <select value={privacy} onChange={(e) => edited(setPrivacy)(e.target.value as PostingDefaults['privacy'])}>
          <option value="public">Public</option>
          <option value="unlisted">Quiet public</option>
          <option value="private">Followers</option>
        </select>
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={sensitive} onChange={(e) => edited(setSensitive)(e.target.checked)} /> Mark
        media as sensitive by default
      </label>
      <label>
        Default posting language
        <select value={language} onChange={(e) => edited(setLanguage)(e.target.value)}>
          <option value="">None chosen</option>
          {languages.map((l) => (
            <option key={l.code} value={l.code}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <p className="toolbar">
        <button type="submit" className="primary" disabled={busy}>
          Save posting defaults
        </button>
        {saved && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
      </p>
      <FormError message={error} />
    </form>
  );
}

/** Choices of this client alone, kept in this browser and applied to posts as they show. */
function ReadingChoicesForm() {
  const { expandWarnings, showSensitive, change } = useReadingChoices();
  return (
    <fieldset className="settings">
      <legend>Reading in this client</legend>
      <p className="muted">Kept in this browser.</p>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={expandWarnings}
          onChange={(e) => change({ expandWarnings: e.target.checked })}
        />{' '}
        Open posts with content warnings
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={showSensitive} onChange={(e) => change({ showSensitive: e.target.checked })} />{' '}
        Show sensitive media without asking
      </label>
    </fieldset>
  );
}

/** Languages offered for a post (ISO 639-1, as Mastodon takes them), named in the reader's own language. */
const LANGUAGES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'sv',
  'da',
  'no',
  'fi',
  'pl',
  'cs',
  'uk',
  'ru',
  'tr',
  'el',
  'ja',
  'ko',
  'zh',
  'ar',
  'he',
  'hi',
  'id',
  'eo',
];

function languageName(code: string): string {
  try {
    return new Intl.DisplayNames([navigator.language], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The post's language: the server tags it so readers can filter by language. */
export function LanguageSelect({ value, onChange }: { value: string; onChange: (code: string) => void }) {
  const codes = LANGUAGES.includes(value) || !value ? LANGUAGES : [value, ...LANGUAGES];
  return (
    <label>
      Language
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {codes.map((code) => (
          <option key={code} value={code}>
            {languageName(code)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Mastodon publishes scheduled posts at least five minutes ahead. */
export const SCHEDULE_MINIMUM_MS = 5 * 60 * 1000;

/** The earliest moment that can be chosen, as a datetime-local value (local time, minutes). */
function earliestLocal(): string {
  const d = new Date(Date.now() + SCHEDULE_MINIMUM_MS + 60_000);
  d.setSeconds(0, 0);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A datetime-local value as the ISO time the API wants, or an explanation of why it cannot be used. */
export function scheduledAt(local: string): { iso: string } | { problem: string } {
  const when = new Date(local);
  if (Number.isNaN(when.getTime())) return { problem: 'Choose a date and time to schedule the post' };
  if (when.getTime() - Date.now() < SCHEDULE_MINIMUM_MS)
    return { problem: 'A scheduled post must be at least five minutes ahead' };
  return { iso: when.toISOString() };
}

/** Optional: publish later instead of now. */
export function ScheduleInput({ value, onChange }: { value: string; onChange: (local: string) => void }) {
  return (
    <label>
      Publish later <span className="muted">(optional)</span>
      <input type="datetime-local" value={value} min={earliestLocal()} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

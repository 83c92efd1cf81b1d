import { useState, type FormEvent } from 'react';
import { Empty, FormError } from '../../components/ui.tsx';
import { useResource } from './use-resource.ts';

interface SocialFilter {
  id: string;
  title: string;
  context: string[];
  filter_action: 'warn' | 'hide' | 'blur';
  expires_at: string | null;
  keywords: { id: string; keyword: string; whole_word: boolean }[];
}

const CONTEXTS: [string, string][] = [
  ['home', 'Home and lists'],
  ['notifications', 'Notifications'],
  ['public', 'Public timelines'],
  ['thread', 'Threads'],
  ['account', 'Profiles'],
];

const ACTIONS: Record<SocialFilter['filter_action'], string> = {
  warn: 'Hide behind a warning',
  blur: 'Hide media behind a warning',
  hide: 'Hide completely',
};

/** Server-side filters (Mastodon's v2): words to watch for, where, and what to do with matching posts. */
export function Filters() {
  const { data: filters, error, act, request } = useResource<SocialFilter[]>('/api/v2/filters');
  const [title, setTitle] = useState('');
  const [keywords, setKeywords] = useState('');
  const [contexts, setContexts] = useState<string[]>(['home', 'public']);
  const [action, setAction] = useState<SocialFilter['filter_action']>('warn');
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const words = keywords
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean);
    const made = await act(() =>
      request('/api/v2/filters', {
        method: 'POST',
        body: {
          title,
          context: contexts,
          filter_action: action,
          keywords_attributes: words.map((keyword) => ({ keyword, whole_word: true })),
        },
      }),
    );
    if (made) {
      setTitle('');
      setKeywords('');
    }
  };
  const remove = (filter: SocialFilter) => act(() => request(`/api/v2/filters/${filter.id}`, { method: 'DELETE' }));
  return (
    <section aria-labelledby="filters-title">
      <h2 id="filters-title">Filters</h2>
      <FormError message={error} />
      {filters === null ? null : filters.length === 0 ? (
        <Empty>No filters: posts are shown as they are.</Empty>
      ) : (
        <ul aria-label="Your filters">
          {filters.map((f) => (
            <li key={f.id}>
              <strong>{f.title}</strong>: {f.keywords.map((k) => k.keyword).join(', ') || 'no keywords'}{' '}
              <span className="muted">
                ({ACTIONS[f.filter_action]};{' '}
                {f.context.map((c) => CONTEXTS.find(([id]) => id === c)?.[1] ?? c).join(', ')})
              </span>{' '}
              <button type="button" onClick={() => void remove(f)} aria-label={`Delete the filter ${f.title}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="form" aria-label="New filter" onSubmit={(e) => void create(e)}>
        <label>
          Name
          <input value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={100} />
        </label>
        <label>
          Words or phrases (comma separated)
          <input value={keywords} onChange={(e) => setKeywords(e.target.value)} required />
        </label>
        <fieldset>
          <legend>Where</legend>
          {CONTEXTS.map(([id, label]) => (
            <label key={id} className="inline-label">
              <input
                type="checkbox"
                checked={contexts.includes(id)}
                onChange={(e) =>
                  setContexts((list) => (e.target.checked ? [...list, id] : list.filter((c) => c !== id)))
                }
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <label>
          What to do
          <select value={action} onChange={(e) => setAction(e.target.value as SocialFilter['filter_action'])}>
            {Object.entries(ACTIONS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={contexts.length === 0}>
          Create filter
        </button>
      </form>
    </section>
  );
}

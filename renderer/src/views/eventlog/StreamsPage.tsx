import { useEffect, useState, type FormEvent } from 'react';
import { AddEventDialog } from '../../components/AddEventForm.tsx';
import { streamPath } from '../../components/EventTable.tsx';
import {
  Empty,
  ErrorState,
  formatAge,
  formatNumber,
  formatTime,
  Link,
  Loading,
  Notice,
  numeric,
  TableHead,
} from '../../components/ui.tsx';
import type { UiStreamSummary } from '../../api/types.ts';
import { useRouter } from '../../stores/router.ts';
import { effectiveMode, useStreams, type SearchMode } from '../../stores/streams.ts';
import { EventLogTabs } from './EventLogTabs.tsx';

function StreamList({
  label,
  streams,
  time,
}: {
  label: string;
  streams: UiStreamSummary[];
  time: 'createdAt' | 'updatedAt';
}) {
  if (!streams.length) return <Empty>No streams yet.</Empty>;
  return (
    <table className="table" aria-label={label}>
      <TableHead columns={['Stream', numeric('Events'), time === 'createdAt' ? 'Created' : 'Changed']} />
      <tbody>
        {streams.map((s) => (
          <tr key={s.streamId}>
            <td className="stream-cell">
              <Link to={streamPath(s.streamId)}>{s.streamId}</Link>{' '}
              {s.deleted !== 'no' && <span className="badge badge-bad">{s.deleted} deleted</span>}
            </td>
            <td className="num">{formatNumber(s.eventCount)}</td>
            <td className="nowrap" title={formatTime(s[time])}>
              {formatAge(s[time])} ago
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const MODES: { id: SearchMode; label: string }[] = [
  { id: 'prefix', label: 'Starts with' },
  { id: 'exact', label: 'Exact name' },
  { id: 'wildcard', label: 'Wildcard (* and ?)' },
];

/** Find streams by exact name, prefix or wildcard; recently created and changed streams; categories. */
export function StreamsPage() {
  const s = useStreams();
  const navigate = useRouter((r) => r.navigate);
  const query = useRouter((r) => r.query);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<{ streamId: string; eventNumber: number; eventId: string } | null>(null);

  // Recent streams and categories change as clients write: refresh them while the page is open.
  useEffect(() => {
    void useStreams.getState().loadOverview();
    const timer = setInterval(() => void useStreams.getState().loadOverview(), 3000);
    return () => clearInterval(timer);
  }, []);

  // ?q=…&mode=… in the URL runs that search (so a search can be bookmarked and Back returns to it).
  useEffect(() => {
    const q = query.q ?? '';
    const mode = (['exact', 'prefix', 'wildcard'] as const).find((m) => m === query.mode) ?? 'prefix';
    if (q) {
      s.setQuery(q, mode);
      void useStreams.getState().search();
    } else if (s.results !== null) s.clearSearch();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query.q, query.mode]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const q = s.query.trim();
    navigate(q ? `/ui/eventlog?${new URLSearchParams({ q, mode: s.mode })}` : '/ui/eventlog');
  };
  const mode = effectiveMode(s.query.trim(), s.mode);

  return (
    <section aria-labelledby="eventlog-title" className="view">
      <div className="view-header">
        <h1 id="eventlog-title">Event log</h1>
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Add event
        </button>
      </div>
      <EventLogTabs current="streams" />

      <form className="toolbar search" role="search" aria-label="Stream search" onSubmit={submit}>
        <label className="grow">
          Find streams
          <input
            type="search"
            value={s.query}
            onChange={(e) => s.setQuery(e.target.value)}
            placeholder="order-, order-42 or order-*-2024"
          />
        </label>
        <label>
          Match
          <select value={s.mode} onChange={(e) => s.setQuery(s.query, e.target.value as SearchMode)}>
            {MODES.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Search
        </button>
        <label className="checkbox">
          <input type="checkbox" checked={s.includeSystem} onChange={(e) => s.setIncludeSystem(e.target.checked)} />{' '}
          Show system streams ($…)
        </label>
      </form>
      {s.query.trim() && mode !== s.mode && <p className="muted">The text has * or ?, so this is a wildcard search.</p>}

      {added && (
        <Notice>
          Added event{' '}
          <Link to={streamPath(added.streamId)}>
            {added.eventNumber}@{added.streamId}
          </Link>{' '}
          with id <code>{added.eventId}</code>.
        </Notice>
      )}

      {s.results !== null ? (
        <section aria-labelledby="results-title">
          <div className="section-header">
            <h2 id="results-title">Search results</h2>
            <button type="button" onClick={() => navigate('/ui/eventlog')}>
              Clear search
            </button>
          </div>
          {s.searching && <Loading label="Searching…" />}
          {s.searchError && <ErrorState message={s.searchError} onRetry={() => void s.search()} />}
          {!s.searching && !s.searchError && s.results.length === 0 && (
            <Empty>
              <p>No stream matches “{query.q}”.</p>
              {mode !== 'wildcard' && (
                <p>
                  <Link to={streamPath(query.q ?? s.query)}>Open “{query.q ?? s.query}” anyway</Link> to add its first
                  event.
                </p>
              )}
            </Empty>
          )}
          {!s.searching && s.results.length > 0 && (
            <StreamList label="Matching streams" streams={s.results} time="updatedAt" />
          )}
          {s.results.length >= 200 && (
            <p className="muted">Showing the first 200 matches; narrow the search to see others.</p>
          )}
        </section>
      ) : s.error && !s.recent ? (
        <ErrorState message={s.error} onRetry={() => void s.loadOverview()} />
      ) : s.loading || !s.recent ? (
        <Loading />
      ) : s.recent.changed.length === 0 ? (
        <Empty>
          <p>There are no streams yet.</p>
          <p>Add an event with the button above, or connect a client (the Server view has connection strings).</p>
        </Empty>
      ) : (
        <div className="columns">
          {s.error && <Notice kind="error">Could not refresh: {s.error}</Notice>}
          <section aria-labelledby="changed-title">
            <h2 id="changed-title">Recently changed</h2>
            <StreamList label="Recently changed streams" streams={s.recent.changed} time="updatedAt" />
          </section>
          <section aria-labelledby="created-title">
            <h2 id="created-title">Recently created</h2>
            <StreamList label="Recently created streams" streams={s.recent.created} time="createdAt" />
          </section>
          <section aria-labelledby="categories-title">
            <h2 id="categories-title">Categories</h2>
            {s.categories?.length ? (
              <ul className="categories" aria-label="Stream categories">
                {s.categories.map((c) => (
                  <li key={c.category}>
                    <Link to={`/ui/eventlog?${new URLSearchParams({ q: `${c.category}-`, mode: 'prefix' })}`}>
                      {/* Named by its content ("invoice: 3 streams"), which holds the words that show. */}
                      <span className="category-name" aria-hidden="true">
                        {c.category}
                      </span>
                      <span className="count" aria-hidden="true">
                        {formatNumber(c.streams)}
                      </span>
                      <span className="visually-hidden">
                        {c.category}: {formatNumber(c.streams)} streams
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
            ) : (
              <Empty>No categories (a category is the part of a stream name before its first “-”).</Empty>
            )}
          </section>
        </div>
      )}

      <AddEventDialog
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(a) => {
          setAdding(false);
          setAdded(a);
          void s.loadOverview();
        }}
      />
    </section>
  );
}

import { useEffect, useState, type FormEvent } from 'react';
import { EventTable } from '../../components/EventTable.tsx';
import { Empty, ErrorState, Loading, Notice } from '../../components/ui.tsx';
import {
  allCursorFromQuery,
  allCursorQuery,
  allMoves,
  filtersFromQuery,
  filtersQuery,
  rowKey,
  sameAllCursor,
  useAll,
  type AllCursorState,
  type AllFilters,
} from '../../stores/all.ts';
import { routePath, useRouter } from '../../stores/router.ts';
import { EventLogTabs } from './EventLogTabs.tsx';
import { LiveControl } from './LiveControl.tsx';
import { EventPageToolbar, LiveTailNotices } from './PageControls.tsx';

const TITLES = {
  first: 'oldest events in the log',
  previous: 'older events',
  next: 'newer events',
  last: 'newest events',
} as const;

const allPath = (c: AllCursorState, f: AllFilters) =>
  routePath('eventlog', ['all'], { ...allCursorQuery(c), ...filtersQuery(f) });

/** `$all`: every event in commit order, both ways by position, with system events hidden unless asked for. */
export function AllPage() {
  const query = useRouter((r) => r.query);
  const navigate = useRouter((r) => r.navigate);
  const s = useAll();
  const cursor = allCursorFromQuery(query);
  const filters = filtersFromQuery(query);
  const [draft, setDraft] = useState(filters);

  useEffect(() => {
    void s.open(cursor, filters);
    setDraft(filters);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query.dir, query.c, query.p, query.x, query.system, query.stream, query.type]);
  useEffect(() => () => useAll.getState().close(), []);
  useEffect(() => {
    if (!sameAllCursor(s.cursor, cursor)) navigate(allPath(s.cursor, s.filters), { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.cursor]);

  const moves = allMoves(s.page);
  const go = (m: keyof typeof moves) => {
    const c = moves[m];
    if (c) navigate(allPath(c, filters));
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    navigate(
      allPath(
        { direction: 'backward' },
        { ...draft, streamPrefix: draft.streamPrefix.trim(), eventType: draft.eventType.trim() },
      ),
    );
  };
  const page = s.page;

  return (
    <section aria-labelledby="all-title" className="view">
      <div className="view-header">
        <h1 id="all-title">Event log</h1>
        <div className="actions">
          <LiveControl live={s.live} paused={s.paused} onPause={s.pause} onResume={() => void s.resume()} />
        </div>
      </div>
      <EventLogTabs current="all" />
      <form className="toolbar" aria-label="Filter all events" onSubmit={apply}>
        <label>
          Stream starts with
          <input
            type="search"
            value={draft.streamPrefix}
            onChange={(e) => setDraft({ ...draft, streamPrefix: e.target.value })}
            placeholder="order-"
          />
        </label>
        <label>
          Event type starts with
          <input
            type="search"
            value={draft.eventType}
            onChange={(e) => setDraft({ ...draft, eventType: e.target.value })}
            placeholder="OrderPlaced"
          />
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={draft.hideSystem}
            onChange={(e) => setDraft({ ...draft, hideSystem: e.target.checked })}
          />{' '}
          Hide system events ($…)
        </label>
        <button type="submit" className="primary">
          Apply filter
        </button>
      </form>

      <LiveTailNotices state={s} onShowNewest={() => go('last')} />

      <EventPageToolbar state={s} pagerLabel="$all pages" titles={TITLES} moves={moves} onMove={go} />
      {page?.searchLimited && (
        <Notice>
          The filter matched few events in the part of the log searched so far; use{' '}
          {page.events.length ? 'the paging buttons' : 'Previous or Next'} to search further.
        </Notice>
      )}

      {s.error ? (
        <ErrorState message={s.error} onRetry={() => void s.reload()} />
      ) : !page ? (
        <Loading />
      ) : page.events.length === 0 ? (
        <Empty>
          {filters.streamPrefix || filters.eventType || filters.hideSystem
            ? 'No events match this filter here.'
            : 'The log is empty.'}
        </Empty>
      ) : (
        <EventTable
          label="All events"
          events={page.events}
          keyOf={rowKey}
          expanded={s.expanded}
          onToggle={s.toggleRow}
          showStream
        />
      )}
    </section>
  );
}

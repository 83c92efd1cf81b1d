import type { ReactNode } from 'react';
import { formatNumber, Notice, Pager } from '../../components/ui.tsx';
import { PAGE_SIZES, type PageMove } from '../../stores/stream.ts';

/** What the `$all` page and a stream's page share: a page of events with a live tail (see stores/live-tail.ts). */
export interface LiveEventPageState {
  page: { events: readonly unknown[] } | null;
  count: number;
  expanded: object;
  paused: boolean;
  arrived: number;
  skipped: number;
  reload(): Promise<void>;
  setCount(count: number): Promise<void>;
  expandAll(): void;
  collapseAll(): void;
}

/** What the live tail did while the page was not following it: events it skipped, and events that arrived. */
export function LiveTailNotices({ state: s, onShowNewest }: { state: LiveEventPageState; onShowNewest: () => void }) {
  return (
    <>
      {s.skipped > 0 && (
        <Notice kind="warn">
          {formatNumber(s.skipped)} live events were skipped because this page could not keep up.{' '}
          <button type="button" onClick={() => void s.reload()}>
            Reload
          </button>
        </Notice>
      )}
      {s.arrived > 0 && (
        <Notice>
          {formatNumber(s.arrived)} new {s.arrived === 1 ? 'event' : 'events'}{' '}
          {s.paused ? 'while paused' : 'since this page was shown'}.{' '}
          {!s.paused && (
            <button type="button" onClick={onShowNewest}>
              Show newest
            </button>
          )}
        </Notice>
      )}
    </>
  );
}

/** Above an event table: the pager, the page size and expand/collapse all; `children` follow them. */
export function EventPageToolbar({
  state: s,
  pagerLabel,
  titles,
  moves,
  onMove,
  children,
}: {
  state: LiveEventPageState;
  pagerLabel: string;
  titles: Record<PageMove, string>;
  moves: Record<PageMove, unknown>;
  onMove: (move: PageMove) => void;
  children?: ReactNode;
}) {
  return (
    <div className="table-toolbar">
      <Pager label={pagerLabel} onMove={onMove} can={moves} titles={titles} />
      <label className="inline-label">
        Per page
        <select value={s.count} onChange={(e) => void s.setCount(Number(e.target.value))}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={s.expandAll} disabled={!s.page?.events.length}>
        Expand all
      </button>
      <button type="button" onClick={s.collapseAll} disabled={!Object.keys(s.expanded).length}>
        Collapse all
      </button>
      {children}
    </div>
  );
}

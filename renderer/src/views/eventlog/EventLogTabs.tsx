import { Link } from '../../components/ui.tsx';
import { routePath } from '../../stores/router.ts';

/** The event log's ways in: by stream, the whole log in order, the projections over it; and replication to or from other servers. */
export function EventLogTabs({ current }: { current: 'streams' | 'all' | 'projections' | 'replication' | null }) {
  return (
    <nav className="tabs" aria-label="Event log">
      <Link to={routePath('eventlog')} className="tab" aria-current={current === 'streams' ? 'page' : undefined}>
        Streams
      </Link>
      <Link to={routePath('eventlog', ['all'])} className="tab" aria-current={current === 'all' ? 'page' : undefined}>
        All events
      </Link>
      <Link
        to={routePath('eventlog', ['projections'])}
        className="tab"
        aria-current={current === 'projections' ? 'page' : undefined}
      >
        Projections
      </Link>
      <Link
        to={routePath('eventlog', ['replication'])}
        className="tab"
        aria-current={current === 'replication' ? 'page' : undefined}
      >
        Replication
      </Link>
    </nav>
  );
}

import { Link } from '../../components/ui.tsx';
import { routePath } from '../../stores/router.ts';

/** The event log's two ways in: by stream, or the whole log in order. */
export function EventLogTabs({ current }: { current: 'streams' | 'all' | null }) {
  return (
    <nav className="tabs" aria-label="Event log">
      <Link to={routePath('eventlog')} className="tab" aria-current={current === 'streams' ? 'page' : undefined}>
        Streams
      </Link>
      <Link to={routePath('eventlog', ['all'])} className="tab" aria-current={current === 'all' ? 'page' : undefined}>
        All events
      </Link>
    </nav>
  );
}

import { useRouter } from '../stores/router.ts';
import { AllPage } from './eventlog/AllPage.tsx';
import { EventPage } from './eventlog/EventPage.tsx';
import { NewProjectionPage } from './eventlog/NewProjectionPage.tsx';
import { ProjectionPage } from './eventlog/ProjectionPage.tsx';
import { ProjectionsPage } from './eventlog/ProjectionsPage.tsx';
import { ReplicationPage } from './eventlog/ReplicationPage.tsx';
import { StreamPage } from './eventlog/StreamPage.tsx';
import { StreamsPage } from './eventlog/StreamsPage.tsx';

/**
 * Event log routes: /ui/eventlog (streams), /ui/eventlog/streams/<stream>, /ui/eventlog/streams/<stream>/events/<n>,
 * /ui/eventlog/all ($all), /ui/eventlog/replication, /ui/eventlog/projections, /ui/eventlog/projections/<name>,
 * /ui/eventlog/new-projection.
 */
export function EventLogView() {
  const rest = useRouter((s) => s.rest);
  if (rest[0] === 'all') return <AllPage />;
  if (rest[0] === 'projections' && rest[1] !== undefined) return <ProjectionPage name={rest[1]} />;
  if (rest[0] === 'projections') return <ProjectionsPage />;
  if (rest[0] === 'new-projection') return <NewProjectionPage />;
  if (rest[0] === 'replication') return <ReplicationPage />;
  if (rest[0] === 'streams' && rest[1] !== undefined && rest[2] === 'events' && rest[3] !== undefined) {
    return <EventPage streamId={rest[1]} eventNumber={rest[3]} />;
  }
  if (rest[0] === 'streams' && rest[1] !== undefined) return <StreamPage streamId={rest[1]} />;
  return <StreamsPage />;
}

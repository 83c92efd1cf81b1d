import type { UiEvent } from '../api/types.ts';
import { routePath } from '../stores/router.ts';
import { eventAsJson, PayloadView } from './JsonView.tsx';
import { CopyButton, formatBytes, formatTime, Link } from './ui.tsx';

export function eventPath(streamId: string, eventNumber: number): string {
  return routePath('eventlog', ['streams', streamId, 'events', eventNumber]);
}

export function streamPath(streamId: string, query: Record<string, string | undefined> = {}): string {
  return routePath('eventlog', ['streams', streamId], query);
}

/** Where a link event points, with a link to the target (or a note that it is gone). */
export function LinkTarget({ event }: { event: UiEvent }) {
  if (!event.linkTo) return null;
  const { streamId, eventNumber } = event.linkTo;
  return (
    <span className="link-target">
      {'→ '}
      <Link to={eventPath(streamId, eventNumber)} aria-label={`Link target: event ${eventNumber} in ${streamId}`}>
        {eventNumber}@{streamId}
      </Link>
      {event.target === null && <span className="muted"> (target deleted)</span>}
    </span>
  );
}

interface EventTableProps {
  label: string;
  events: UiEvent[];
  keyOf: (e: UiEvent) => string;
  expanded: Record<string, boolean>;
  onToggle: (key: string) => void;
  /** `$all` shows which stream each event belongs to, and its position. */
  showStream?: boolean;
  onAddLike?: (e: UiEvent) => void;
}

/** Events as a table: one row each, expandable in place to data and metadata (so the browser's find sees them). */
export function EventTable({ label, events, keyOf, expanded, onToggle, showStream, onAddLike }: EventTableProps) {
  const columns = showStream ? 8 : 6;
  return (
    <table className="table events" aria-label={label}>
      <thead>
        <tr>
          <th scope="col" className="col-toggle">
            <span className="visually-hidden">Expand</span>
          </th>
          {showStream && (
            <th scope="col" className="num">
              Position
            </th>
          )}
          {showStream && <th scope="col">Stream</th>}
          <th scope="col" className="num">
            #
          </th>
          <th scope="col">Type</th>
          <th scope="col">Created (local time)</th>
          <th scope="col" className="num">
            Size
          </th>
          <th scope="col">Event id</th>
        </tr>
      </thead>
      {events.map((e) => {
        const key = keyOf(e);
        const open = Boolean(expanded[key]);
        const detailId = `event-detail-${key.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
        const shown = e.target ?? e;
        return (
          <tbody key={key} className={open ? 'event open' : 'event'}>
            <tr>
              <td className="col-toggle">
                <button
                  type="button"
                  className="icon"
                  aria-expanded={open}
                  aria-controls={detailId}
                  aria-label={`${open ? 'Collapse' : 'Expand'} event ${e.eventNumber} in ${e.streamId}`}
                  onClick={() => onToggle(key)}
                >
                  {open ? '▾' : '▸'}
                </button>
              </td>
              {showStream && <td className="num muted position">{e.position ? e.position.commitPosition : ''}</td>}
              {showStream && (
                <td className="stream-cell">
                  <Link to={streamPath(e.streamId)}>{e.streamId}</Link>
                </td>
              )}
              <td className="num">
                <Link
                  to={eventPath(e.streamId, e.eventNumber)}
                  aria-label={`Open event ${e.eventNumber} in ${e.streamId}`}
                >
                  {e.eventNumber}
                </Link>
              </td>
              <td>
                <span className="event-type">{e.eventType}</span> <LinkTarget event={e} />
                {e.target && <span className="muted"> ({e.target.eventType})</span>}
              </td>
              <td className="nowrap">{formatTime(e.created)}</td>
              <td className="num nowrap">{formatBytes(e.size)}</td>
              <td>
                <code className="event-id" title={e.eventId}>
                  {e.eventId.slice(0, 8)}
                </code>
              </td>
            </tr>
            {open && (
              <tr className="event-detail" id={detailId}>
                <td colSpan={columns}>
                  <div className="detail-actions">
                    <CopyButton text={eventAsJson(e)} label={`Copy event ${e.eventNumber} as JSON`}>
                      Copy event JSON
                    </CopyButton>
                    <CopyButton text={e.eventId} label={`Copy id of event ${e.eventNumber}`}>
                      Copy id
                    </CopyButton>
                    <Link to={eventPath(e.streamId, e.eventNumber)}>Open event</Link>
                    {onAddLike && (
                      <button type="button" onClick={() => onAddLike(shown)}>
                        Add new like this
                      </button>
                    )}
                    <span className="muted">
                      id <code>{e.eventId}</code>
                      {e.position && (
                        <>
                          {' '}
                          · position{' '}
                          <code>
                            {e.position.commitPosition}/{e.position.preparePosition}
                          </code>
                        </>
                      )}
                    </span>
                  </div>
                  {e.target && (
                    <p className="muted">
                      Resolved link: showing event {e.target.eventNumber} of {e.target.streamId} (type{' '}
                      {e.target.eventType}).
                    </p>
                  )}
                  <div className="payloads">
                    <PayloadView title="Data" payload={shown.data} copyLabel={`Copy data of event ${e.eventNumber}`} />
                    <PayloadView
                      title="Metadata"
                      payload={shown.metadata}
                      copyLabel={`Copy metadata of event ${e.eventNumber}`}
                    />
                    {e.target && (
                      <PayloadView
                        title="Link metadata"
                        payload={e.metadata}
                        copyLabel={`Copy link metadata of event ${e.eventNumber}`}
                      />
                    )}
                  </div>
                </td>
              </tr>
            )}
          </tbody>
        );
      })}
    </table>
  );
}

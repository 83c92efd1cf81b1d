import { useEffect } from 'react';
import { eventPath, LinkTarget, streamPath } from '../../components/EventTable.tsx';
import { eventAsJson, PayloadView } from '../../components/JsonView.tsx';
import { CopyButton, ErrorState, formatBytes, formatTime, Link, Loading } from '../../components/ui.tsx';
import { useEvent } from '../../stores/event.ts';
import { routePath } from '../../stores/router.ts';

/** One event: number, stream, type, id, created, data, metadata, and its neighbours. */
export function EventPage({ streamId, eventNumber: raw }: { streamId: string; eventNumber: string }) {
  const n = Number(raw);
  const valid = Number.isSafeInteger(n) && n >= -1;
  const { detail, loading, error, missing, open } = useEvent();
  useEffect(() => {
    if (valid) void open(streamId, n);
  }, [streamId, n, valid, open]);

  const crumbs = (
    <nav className="breadcrumbs" aria-label="Breadcrumbs">
      <Link to={routePath('eventlog')}>Streams</Link> <span aria-hidden="true">›</span>{' '}
      <Link to={streamPath(streamId)}>{streamId}</Link> <span aria-hidden="true">›</span> <span>#{raw}</span>
    </nav>
  );
  if (!valid) {
    return (
      <section className="view" aria-label="Event">
        {crumbs}
        <ErrorState message={`“${raw}” is not an event number.`} />
      </section>
    );
  }
  const e = detail?.event;
  const shown = e?.target ?? e;
  return (
    <section aria-labelledby="event-title" className="view">
      {crumbs}
      <div className="view-header">
        <h1 id="event-title">
          Event {e ? e.eventNumber : n} in <span className="stream-name">{streamId}</span>
        </h1>
        <nav className="pager" aria-label="Neighbouring events">
          {detail?.previous !== null && detail?.previous !== undefined ? (
            <Link
              className="button"
              to={eventPath(streamId, detail.previous)}
              aria-label={`Previous event (${detail.previous})`}
            >
              ← Previous event
            </Link>
          ) : (
            <button type="button" disabled aria-label="Previous event (none)">
              ← Previous event
            </button>
          )}
          {detail?.next !== null && detail?.next !== undefined ? (
            <Link className="button" to={eventPath(streamId, detail.next)} aria-label={`Next event (${detail.next})`}>
              Next event →
            </Link>
          ) : (
            <button type="button" disabled aria-label="Next event (none)">
              Next event →
            </button>
          )}
        </nav>
      </div>
      {error && missing ? (
        <div className="state state-error" role="alert" data-testid="no-such-event">
          <h2>No such event</h2>
          <p>{error}</p>
          <p>
            <Link to={streamPath(streamId)}>Back to the stream {streamId}</Link>
          </p>
        </div>
      ) : error ? (
        <ErrorState
          message={error}
          onRetry={() => {
            useEvent.setState({ key: null });
            void open(streamId, n);
          }}
        />
      ) : loading || !e || !shown ? (
        <Loading />
      ) : (
        <>
          <dl className="facts" aria-label="Event facts">
            <dt>Number</dt>
            <dd data-testid="event-number">{e.eventNumber}</dd>
            <dt>Stream</dt>
            <dd>
              <Link to={streamPath(e.streamId, { from: String(e.eventNumber), dir: 'backward' })}>{e.streamId}</Link>
            </dd>
            <dt>Type</dt>
            <dd>
              <span className="event-type">{e.eventType}</span> <LinkTarget event={e} />
            </dd>
            <dt>Event id</dt>
            <dd>
              <code>{e.eventId}</code> <CopyButton text={e.eventId} label="Copy event id" />
            </dd>
            <dt>Created</dt>
            <dd>
              {formatTime(e.created)} <span className="muted">({new Date(e.created).toISOString()})</span>
            </dd>
            <dt>Size</dt>
            <dd>
              {formatBytes(e.size)} ({e.isJson ? 'JSON' : 'not marked as JSON'})
            </dd>
            {e.target && (
              <>
                <dt>Link to</dt>
                <dd>
                  event {e.target.eventNumber} of <Link to={streamPath(e.target.streamId)}>{e.target.streamId}</Link>,
                  type {e.target.eventType}, created {formatTime(e.target.created)}
                </dd>
              </>
            )}
          </dl>
          <div className="detail-actions">
            <CopyButton text={eventAsJson(e)} label="Copy event JSON">
              Copy event JSON
            </CopyButton>
          </div>
          <div className="payloads">
            <PayloadView title="Data" payload={shown.data} copyLabel="Copy data" level={2} />
            <PayloadView title="Metadata" payload={shown.metadata} copyLabel="Copy metadata" level={2} />
            {e.target && (
              <PayloadView title="Link metadata" payload={e.metadata} copyLabel="Copy link metadata" level={2} />
            )}
          </div>
        </>
      )}
    </section>
  );
}

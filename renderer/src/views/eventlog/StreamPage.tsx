import { useEffect, useState } from 'react';
import { api, qs } from '../../api/client.ts';
import type { UiEvent } from '../../api/types.ts';
import { AddEventDialog, type AddEventDraft } from '../../components/AddEventForm.tsx';
import { EventTable, streamPath } from '../../components/EventTable.tsx';
import { formatPayloadText } from '../../components/JsonView.tsx';
import { MetadataForm, MetadataSummary } from '../../components/MetadataEditor.tsx';
import {
  Badge,
  CopyButton,
  Dialog,
  Empty,
  ErrorState,
  formatNumber,
  formatTime,
  FormFooter,
  Link,
  Loading,
  Notice,
  useAction,
} from '../../components/ui.tsx';
import { routePath, useRouter } from '../../stores/router.ts';
import { cursorFromQuery, cursorQuery, pageMoves, sameCursor, useStream } from '../../stores/stream.ts';
import { LiveControl } from './LiveControl.tsx';
import { EventPageToolbar, LiveTailNotices } from './PageControls.tsx';

const PAGE_TITLES = {
  first: 'oldest events, from event 0',
  previous: 'older events',
  next: 'newer events',
  last: 'newest events',
} as const;

/** Soft or hard delete, with the consequence spelled out and (for hard) the name typed to confirm. */
function DeleteStreamDialog({
  streamId,
  lastEventNumber,
  open,
  onClose,
  onDeleted,
}: {
  streamId: string;
  lastEventNumber: number;
  open: boolean;
  onClose: () => void;
  onDeleted: (hard: boolean) => void;
}) {
  const [hard, setHard] = useState(false);
  const [typed, setTyped] = useState('');
  const { busy, error, setError, run } = useAction();
  useEffect(() => {
    if (open) {
      setHard(false);
      setTyped('');
      setError(null);
    }
  }, [open]);
  const confirmNeeded = hard && typed !== streamId;
  const remove = () => {
    setError(null);
    return run(async () => {
      await api(`/eventlog/streams/${encodeURIComponent(streamId)}${qs({ hard })}`, { method: 'DELETE' });
      onDeleted(hard);
    });
  };
  return (
    <Dialog open={open} title={`Delete stream ${streamId}`} onClose={onClose}>
      <fieldset className="choices">
        <legend>How</legend>
        <label className="choice">
          <input type="radio" name="delete-kind" checked={!hard} onChange={() => setHard(false)} />
          <span>
            <strong>Soft delete</strong>: the stream's {formatNumber(lastEventNumber + 1)} events stop being readable
            and are removed at the next scavenge. Writing to <code>{streamId}</code> again brings the stream back,
            numbered on from {formatNumber(lastEventNumber + 1)}.
          </span>
        </label>
        <label className="choice">
          <input type="radio" name="delete-kind" checked={hard} onChange={() => setHard(true)} />
          <span>
            <strong>Hard delete</strong>: the stream is gone for good and its name can <em>never</em> be written to
            again; every later write to it fails. This cannot be undone.
          </span>
        </label>
      </fieldset>
      {hard && (
        <label>
          Type the stream name to confirm
          <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
        </label>
      )}
      <FormFooter error={error} onCancel={onClose}>
        <button type="button" className="danger" disabled={busy || confirmNeeded} onClick={() => void remove()}>
          {busy ? 'Deleting…' : hard ? 'Delete permanently' : 'Soft delete stream'}
        </button>
      </FormFooter>
    </Dialog>
  );
}

/** One stream: paged events (newest page first), live tail, metadata, add and delete. */
export function StreamPage({ streamId }: { streamId: string }) {
  const query = useRouter((r) => r.query);
  const navigate = useRouter((r) => r.navigate);
  const s = useStream();
  const urlCursor = cursorFromQuery(query);
  const [adding, setAdding] = useState<AddEventDraft | null>(null);
  const [editingMeta, setEditingMeta] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    void s.open(streamId, urlCursor);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [streamId, urlCursor.from, urlCursor.direction]);
  useEffect(() => () => useStream.getState().close(), []);

  // The store moves to the newest page by itself (live tail, resume): keep the address in step.
  useEffect(() => {
    if (s.streamId === streamId && !sameCursor(s.cursor, urlCursor))
      navigate(streamPath(streamId, cursorQuery(s.cursor)), { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.cursor]);

  const moves = pageMoves(s.page, s.cursor);
  const go = (m: keyof typeof moves) => {
    const c = moves[m];
    if (c) navigate(streamPath(streamId, cursorQuery(c)));
  };
  const page = s.page;
  const addLike = (e: UiEvent) =>
    setAdding({
      eventType: e.eventType,
      data: e.data.encoding === 'utf8' ? formatPayloadText(e.data.text).text : '',
      metadata: e.metadata.encoding === 'utf8' ? formatPayloadText(e.metadata.text).text : '',
      isJson: e.isJson,
    });

  return (
    <section aria-labelledby="stream-title" className="view">
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link to={routePath('eventlog')}>Streams</Link> <span aria-hidden="true">›</span> <span>{streamId}</span>
      </nav>
      <div className="view-header">
        <h1 id="stream-title" className="stream-name">
          {streamId}
        </h1>
        <CopyButton text={streamId} label="Copy stream name" />
        <div className="actions">
          <LiveControl live={s.live} paused={s.paused} onPause={s.pause} onResume={() => void s.resume()} />
          <button type="button" className="primary" onClick={() => setAdding({})}>
            Add event
          </button>
          <button type="button" onClick={() => setEditingMeta(true)} disabled={!s.metadata && !s.metadataError}>
            Edit metadata
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => setDeleting(true)}
            disabled={s.summary?.deleted !== 'no'}
          >
            Delete stream…
          </button>
        </div>
      </div>

      {s.summary && (
        <dl className="facts inline" aria-label="Stream facts">
          <dt>Events</dt>
          <dd data-testid="stream-event-count">{formatNumber(s.summary.eventCount)}</dd>
          <dt>Last event</dt>
          <dd>#{formatNumber(page?.lastEventNumber ?? s.summary.lastEventNumber)}</dd>
          <dt>Created</dt>
          <dd>{formatTime(s.summary.createdAt)}</dd>
          <dt>Changed</dt>
          <dd>{formatTime(s.summary.updatedAt)}</dd>
          {s.summary.deleted !== 'no' && (
            <>
              <dt>State</dt>
              <dd>
                <Badge tone="bad">{s.summary.deleted} deleted</Badge>
              </dd>
            </>
          )}
        </dl>
      )}
      {s.metadata && <MetadataSummary metadata={s.metadata} />}
      {s.metadataError && <Notice kind="warn">Metadata: {s.metadataError}</Notice>}

      {notice && <Notice>{notice}</Notice>}
      {s.deleted && <Notice kind="warn">This stream was {s.deleted.hard ? 'hard' : 'soft'} deleted.</Notice>}
      <LiveTailNotices state={s} onShowNewest={() => go('last')} />

      <EventPageToolbar state={s} pagerLabel="Stream pages" titles={PAGE_TITLES} moves={moves} onMove={go}>
        {page && page.events.length > 0 && (
          <span className="muted page-range" aria-live="polite">
            Events {formatNumber(page.events[0].eventNumber)}–
            {formatNumber(page.events[page.events.length - 1].eventNumber)} of {formatNumber(page.lastEventNumber + 1)}
          </span>
        )}
      </EventPageToolbar>

      {s.error ? (
        <ErrorState message={s.error} onRetry={() => void s.reload()} />
      ) : !page ? (
        <Loading />
      ) : !page.exists ? (
        <Empty>
          <p>
            There is no stream <code>{streamId}</code> (yet).
          </p>
          <p>
            <button type="button" className="primary" onClick={() => setAdding({})}>
              Add its first event
            </button>
          </p>
        </Empty>
      ) : page.events.length === 0 ? (
        <Empty>
          No events to show here{page.lastEventNumber >= 0 ? ': they were truncated, expired or deleted' : ''}.
        </Empty>
      ) : (
        <EventTable
          label={`Events in ${streamId}`}
          // Newest first, as KurrentDB's UI shows a stream: live events land on top, in view.
          events={[...page.events].reverse()}
          keyOf={(e) => String(e.eventNumber)}
          expanded={s.expanded}
          onToggle={(k) => s.toggleRow(Number(k))}
          onAddLike={addLike}
        />
      )}

      <AddEventDialog
        open={adding !== null}
        streamId={streamId}
        draft={adding ?? undefined}
        onClose={() => setAdding(null)}
        onAdded={(a) => {
          setAdding(null);
          setNotice(`Added event ${a.eventNumber} with id ${a.eventId}.`);
          if (!s.page?.exists || s.live !== 'live') void s.reload();
        }}
      />
      <Dialog open={editingMeta} title={`Metadata of ${streamId}`} onClose={() => setEditingMeta(false)} wide>
        {editingMeta && (
          <MetadataForm
            metadata={s.metadata}
            lastEventNumber={page?.lastEventNumber ?? -1}
            onCancel={() => setEditingMeta(false)}
            onSave={async (doc) => {
              await s.saveMetadata(doc);
              setEditingMeta(false);
              setNotice('Metadata saved.');
            }}
          />
        )}
      </Dialog>
      <DeleteStreamDialog
        streamId={streamId}
        lastEventNumber={page?.lastEventNumber ?? -1}
        open={deleting}
        onClose={() => setDeleting(false)}
        onDeleted={(hard) => {
          setDeleting(false);
          setNotice(hard ? `${streamId} was deleted permanently.` : `${streamId} was soft deleted.`);
          void s.reload();
        }}
      />
    </section>
  );
}

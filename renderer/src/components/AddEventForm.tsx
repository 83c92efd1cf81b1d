import { useState, type FormEvent } from 'react';
import { api } from '../api/client.ts';
import { Dialog, Field, FormFooter, useAction } from './ui.tsx';

export interface AddedEvent {
  streamId: string;
  eventId: string;
  eventNumber: number;
}

export interface AddEventDraft {
  eventType?: string;
  data?: string;
  metadata?: string;
  isJson?: boolean;
}

/** A v4 UUID; `crypto.randomUUID` exists only in secure contexts, so a page opened over plain http on a LAN builds one itself. */
export function newId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Why a text is not JSON, or null when it is (empty counts as fine where the field is optional). */
export function jsonProblem(text: string, optional: boolean): string | null {
  if (!text.trim()) return optional ? null : 'Required: JSON such as {"name": "value"}';
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * "Add event": type, data and metadata are checked here before anything is sent (and again by the server),
 * and the event id is shown up front so it can be copied or replaced.
 */
export function AddEventDialog({
  open,
  onClose,
  onAdded,
  streamId,
  draft,
}: {
  open: boolean;
  onClose: () => void;
  onAdded: (added: AddedEvent) => void;
  /** Fixed stream (on a stream's page); absent, the form asks for one. */
  streamId?: string;
  draft?: AddEventDraft;
}) {
  return (
    <Dialog open={open} title={streamId ? `Add event to ${streamId}` : 'Add event'} onClose={onClose} wide>
      {open && <AddEventForm streamId={streamId} draft={draft} onAdded={onAdded} onCancel={onClose} />}
    </Dialog>
  );
}

function AddEventForm({
  streamId,
  draft,
  onAdded,
  onCancel,
}: {
  streamId?: string;
  draft?: AddEventDraft;
  onAdded: (a: AddedEvent) => void;
  onCancel: () => void;
}) {
  const [stream, setStream] = useState(streamId ?? '');
  const [eventType, setEventType] = useState(draft?.eventType ?? '');
  const [eventId, setEventId] = useState(newId);
  const [isJson, setIsJson] = useState(draft?.isJson ?? true);
  const [data, setData] = useState(draft?.data ?? '{\n  \n}');
  const [metadata, setMetadata] = useState(draft?.metadata ?? '');
  const [touched, setTouched] = useState(false);
  const { busy, error: serverError, setError: setServerError, run } = useAction();

  const problems = {
    stream: !stream.trim() ? 'Required' : stream === '$all' ? 'Events go to a named stream, not $all' : null,
    eventType: !eventType.trim() ? 'Required, e.g. OrderPlaced' : null,
    eventId: UUID.test(eventId) ? null : 'Must be a UUID such as 0a1b2c3d-…',
    data: isJson ? jsonProblem(data, false) : null,
    metadata: jsonProblem(metadata, true),
  };
  const invalid = Object.values(problems).some(Boolean);
  const show = (p: string | null) => (touched ? p : null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    setServerError(null);
    if (invalid) return;
    await run(async () => {
      const r = await api<{ eventNumber: number; eventId: string }>(
        `/eventlog/streams/${encodeURIComponent(stream.trim())}/events`,
        {
          method: 'POST',
          body: { eventId, eventType: eventType.trim(), data, metadata, isJson },
        },
      );
      onAdded({ streamId: stream.trim(), eventId: r.eventId, eventNumber: r.eventNumber });
    });
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      {streamId === undefined && (
        <Field label="Stream" error={show(problems.stream)}>
          {(p) => (
            <input
              {...p}
              value={stream}
              onChange={(e) => setStream(e.target.value)}
              placeholder="order-1234"
              autoFocus
              required
            />
          )}
        </Field>
      )}
      <div className="form-row">
        <Field label="Event type" error={show(problems.eventType)} className="grow">
          {(p) => (
            <input
              {...p}
              value={eventType}
              onChange={(e) => setEventType(e.target.value)}
              placeholder="OrderPlaced"
              required
              autoFocus={streamId !== undefined}
            />
          )}
        </Field>
        <Field label="Event id" error={show(problems.eventId)} className="grow">
          {(p) => (
            <span className="input-with-button">
              <input {...p} className="mono" value={eventId} onChange={(e) => setEventId(e.target.value.trim())} />
              <button type="button" onClick={() => setEventId(newId())}>
                New id
              </button>
            </span>
          )}
        </Field>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={isJson} onChange={(e) => setIsJson(e.target.checked)} /> Data is JSON
      </label>
      <Field
        label="Data"
        error={show(problems.data)}
        help={
          !show(problems.data) && isJson && data.trim() && !problems.data ? (
            <span className="field-ok">Valid JSON</span>
          ) : undefined
        }
      >
        {(p) => (
          <textarea
            {...p}
            className="mono"
            rows={8}
            value={data}
            onChange={(e) => setData(e.target.value)}
            spellCheck={false}
          />
        )}
      </Field>
      <Field
        label={
          <>
            Metadata <span className="muted">(optional JSON)</span>
          </>
        }
        error={show(problems.metadata)}
      >
        {(p) => (
          <textarea
            {...p}
            className="mono"
            rows={3}
            value={metadata}
            onChange={(e) => setMetadata(e.target.value)}
            spellCheck={false}
            placeholder='{"correlationId": "…"}'
          />
        )}
      </Field>
      <FormFooter error={serverError} onCancel={onCancel}>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add event'}
        </button>
      </FormFooter>
    </form>
  );
}

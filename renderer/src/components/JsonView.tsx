import type { ReactNode } from 'react';
import type { UiPayload } from '../api/types.ts';
import { CopyButton, formatBytes } from './ui.tsx';

/** Pretty JSON when the text parses, the text as it is otherwise. */
export function formatPayloadText(text: string): { text: string; json: boolean } {
  if (!text.trim()) return { text: '', json: false };
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), json: true };
  } catch {
    return { text, json: false };
  }
}

const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** Colours keys, strings, numbers and literals; the text itself stays plain so the browser's find sees it. */
function highlight(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let i = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) {
      out.push(
        <span key={i++} className={m[2] ? 'j-key' : 'j-str'}>
          {m[1]}
        </span>,
      );
      if (m[2]) out.push(m[2]);
    } else if (m[3] !== undefined) {
      out.push(
        <span key={i++} className="j-lit">
          {m[3]}
        </span>,
      );
    } else {
      out.push(
        <span key={i++} className="j-num">
          {m[4]}
        </span>,
      );
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Data or metadata of an event: formatted, copyable, honest about truncation and binary content. */
export function PayloadView({
  title,
  payload,
  copyLabel,
  level = 3,
}: {
  title: string;
  payload: UiPayload;
  copyLabel: string;
  /** The heading level that follows the page's own outline (2 right under the page's h1). */
  level?: 2 | 3;
}) {
  const Heading = level === 2 ? 'h2' : 'h3';
  if (payload.encoding === 'base64') {
    return (
      <section className="payload" aria-label={title}>
        <header className="payload-header">
          <Heading>{title}</Heading>
          <span className="muted">binary, {formatBytes(payload.bytes)} (base64)</span>
          <CopyButton text={payload.text} label={copyLabel} />
        </header>
        <pre className="json">{payload.text}</pre>
        {payload.truncated && <p className="muted">Shortened; open the event to see all of it.</p>}
      </section>
    );
  }
  const formatted = payload.truncated ? { text: payload.text, json: false } : formatPayloadText(payload.text);
  return (
    <section className="payload" aria-label={title}>
      <header className="payload-header">
        <Heading>{title}</Heading>
        <span className="muted">
          {payload.bytes === 0 ? 'empty' : `${formatted.json ? 'JSON' : 'text'}, ${formatBytes(payload.bytes)}`}
        </span>
        {payload.bytes > 0 && <CopyButton text={formatted.text} label={copyLabel} />}
      </header>
      {payload.bytes > 0 && <pre className="json">{formatted.json ? highlight(formatted.text) : formatted.text}</pre>}
      {payload.truncated && (
        <p className="muted">Shortened to {formatBytes(payload.text.length)}; open the event to see all of it.</p>
      )}
    </section>
  );
}

/** The whole event as one JSON document (what "Copy event JSON" puts on the clipboard). */
export function eventAsJson(e: {
  streamId: string;
  eventNumber: number;
  eventId: string;
  eventType: string;
  created: number;
  data: UiPayload;
  metadata: UiPayload;
  position?: { commitPosition: number; preparePosition: number };
}): string {
  const parse = (p: UiPayload) => {
    if (p.encoding === 'base64') return { base64: p.text };
    try {
      return p.text.trim() ? JSON.parse(p.text) : null;
    } catch {
      return p.text;
    }
  };
  return JSON.stringify(
    {
      streamId: e.streamId,
      eventNumber: e.eventNumber,
      eventId: e.eventId,
      eventType: e.eventType,
      created: new Date(e.created).toISOString(),
      ...(e.position ? { position: e.position } : {}),
      data: parse(e.data),
      metadata: parse(e.metadata),
    },
    null,
    2,
  );
}

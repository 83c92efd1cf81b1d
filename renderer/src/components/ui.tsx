import { useEffect, useId, useRef, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';
import { Link as RouterLink } from 'wouter';
import { IN_APP } from '../stores/router.ts';

/** Shared states every view uses, so loading, empty and error look the same everywhere. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

/** A notice inside a view (not a full-page state): info, warn or error. */
export function Notice({ kind = 'info', children }: { kind?: 'info' | 'warn' | 'error'; children: ReactNode }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

async function copyToClipboard(text: string): Promise<void> {
  const bridge = window.homeport;
  if (bridge) return bridge.copyText(text);
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API refused (no permission or not a secure context): the old way still works on a user gesture.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    if (!ok) throw new Error('copy refused');
  }
}

export function CopyButton({ text, label, children = 'Copy' }: { text: string; label: string; children?: ReactNode }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="copy"
      aria-label={label}
      title={label}
      onClick={() => {
        copyToClipboard(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : children}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Could not copy' : ''}
      </span>
    </button>
  );
}

/** An in-app link: a real `<a href>` (middle click and Ctrl+click open a new tab), followed in place on a plain click. */
export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'>) {
  return (
    <RouterLink href={to} state={IN_APP} {...rest}>
      {children}
    </RouterLink>
  );
}

/**
 * A modal dialog on the native <dialog> element: focus moves in and is trapped, Escape closes it, and
 * focus returns to whatever opened it.
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
  wide,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="icon" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </header>
          <div className="dialog-body">{children}</div>
        </>
      )}
    </dialog>
  );
}

/**
 * First/previous/next/last: always in the same place, disabled when there is nowhere to go. `can` takes the
 * page's moves as they are: a move with nothing (null) behind it is disabled.
 */
export function Pager({
  label,
  onMove,
  can,
  titles,
}: {
  label: string;
  onMove: (move: 'first' | 'previous' | 'next' | 'last') => void;
  can: Record<'first' | 'previous' | 'next' | 'last', unknown>;
  titles: Record<'first' | 'previous' | 'next' | 'last', string>;
}) {
  const names = { first: 'First', previous: 'Previous', next: 'Next', last: 'Last' } as const;
  return (
    <nav className="pager" aria-label={label}>
      {(['first', 'previous', 'next', 'last'] as const).map((m) => (
        <button
          key={m}
          type="button"
          disabled={!can[m]}
          onClick={() => onMove(m)}
          title={titles[m]}
          aria-label={`${names[m]} page: ${titles[m]}`}
        >
          {m === 'first' && '⇤ '}
          {m === 'previous' && '← '}
          {names[m]}
          {m === 'next' && ' →'}
          {m === 'last' && ' ⇥'}
        </button>
      ))}
    </nav>
  );
}

/**
 * An async action behind a form's or dialog's button: `busy` while `run` runs it (to disable the button and
 * say so), and the message it failed with in `error`.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await action();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** A form's or dialog's error message, read out as soon as it appears; nothing while there is none. */
export function FormError({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}

/**
 * The foot of a form or dialog: its error message, then its buttons, right-aligned with Cancel first. The
 * Cancel button is drawn for `onCancel`; the other buttons (or a Cancel link) come as children.
 */
export function FormFooter({
  error,
  onCancel,
  children,
}: {
  error: string | null;
  onCancel?: () => void;
  children: ReactNode;
}) {
  return (
    <>
      <FormError message={error} />
      <div className="form-actions">
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        {children}
      </div>
    </>
  );
}

export type TableColumn = string | { label: ReactNode; num?: boolean };

/** A right-aligned column of numbers. */
export const numeric = (label: string): TableColumn => ({ label, num: true });

/** A table's column headings; `num` columns are right-aligned like their cells. */
export function TableHead({ columns }: { columns: readonly TableColumn[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) =>
          typeof c === 'string' ? (
            <th key={i} scope="col">
              {c}
            </th>
          ) : (
            <th key={i} scope="col" className={c.num ? 'num' : undefined}>
              {c.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}

/** A small coloured status word, always with text (never colour alone). */
export function Badge({
  tone = 'neutral',
  children,
}: {
  tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'accent';
  children: ReactNode;
}) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatRate(perSecond: number | null, unit = '/s'): string {
  if (perSecond === null) return '–';
  if (perSecond >= 100) return `${Math.round(perSecond).toLocaleString()}${unit}`;
  return `${perSecond.toFixed(perSecond >= 10 ? 1 : 2).replace(/\.?0+$/, '') || '0'}${unit}`;
}

/** Local date and time with seconds and milliseconds: events are often milliseconds apart. */
export function formatTime(ms: number): string {
  if (!ms) return '–';
  const d = new Date(ms);
  const date = d.toLocaleDateString(undefined, { year: 'numeric', month: '2-digit', day: '2-digit' });
  const time = d.toLocaleTimeString(undefined, {
    hour12: false,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return `${date} ${time}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 1) return '< 1 s';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

export function formatAge(ms: number, now = Date.now()): string {
  return formatDuration(Math.max(0, (now - ms) / 1000));
}

export function formatNumber(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString();
}

export interface FieldControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

/**
 * A labelled form control with optional help and error text. The label names the control alone; help and
 * error are tied to it with aria-describedby, so a screen reader reads them after the name.
 */
export function Field({
  label,
  help,
  error,
  className,
  children,
}: {
  label: ReactNode;
  help?: ReactNode;
  error?: string | null;
  className?: string;
  children: (props: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  const described = [help ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': described || undefined, 'aria-invalid': error ? true : undefined })}
      {help && (
        <span className="help" id={`${id}-help`}>
          {help}
        </span>
      )}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

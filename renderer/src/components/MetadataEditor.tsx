import { useState, type FormEvent } from 'react';
import type { MetadataResponse } from '../api/types.ts';
import { Field, formatDuration, formatNumber, FormFooter, useAction } from './ui.tsx';

const ACL = [
  { key: '$r', label: 'Read' },
  { key: '$w', label: 'Write' },
  { key: '$d', label: 'Delete' },
  { key: '$mr', label: 'Metadata read' },
  { key: '$mw', label: 'Metadata write' },
] as const;
const RESERVED = new Set(['$maxCount', '$maxAge', '$tb', '$cacheControl', '$acl']);

function roles(v: unknown): string {
  if (Array.isArray(v)) return v.join(', ');
  return typeof v === 'string' ? v : '';
}

/** One line about the limits in force, for the stream header. */
export function MetadataSummary({ metadata }: { metadata: MetadataResponse }) {
  const doc = metadata.metadata ?? {};
  const acl = (doc.$acl ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof doc.$maxCount === 'number') parts.push(`keeps the last ${formatNumber(doc.$maxCount)} events`);
  if (typeof doc.$maxAge === 'number') parts.push(`keeps events for ${formatDuration(doc.$maxAge)}`);
  if (typeof doc.$tb === 'number') parts.push(`truncated before event ${formatNumber(doc.$tb)}`);
  if (typeof doc.$cacheControl === 'number') parts.push(`cache control ${doc.$cacheControl} s`);
  const aclParts = ACL.filter((a) => acl[a.key] !== undefined).map(
    (a) => `${a.label.toLowerCase()}: ${roles(acl[a.key]) || 'nobody'}`,
  );
  return (
    <dl className="facts compact" aria-label="Stream metadata">
      <dt>Limits</dt>
      <dd data-testid="metadata-limits">{parts.length ? parts.join(' · ') : 'none (every event is kept)'}</dd>
      <dt>Access</dt>
      <dd>{aclParts.length ? aclParts.join(' · ') : 'default ACL'}</dd>
      {metadata.invalid && (
        <>
          <dt>Problem</dt>
          <dd className="form-error">{metadata.invalid}</dd>
        </>
      )}
    </dl>
  );
}

function numberOrUndefined(text: string, name: string, min: number): number | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const n = Number(t);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}`);
  return n;
}

/** Edits `$maxCount`, `$maxAge`, `$tb`, `$cacheControl`, the ACL and any other keys; saving writes a new `$metadata` event. */
export function MetadataForm({
  metadata,
  lastEventNumber,
  onSave,
  onCancel,
}: {
  metadata: MetadataResponse | null;
  lastEventNumber: number;
  onSave: (doc: Record<string, unknown>) => Promise<void>;
  onCancel: () => void;
}) {
  const doc = metadata?.metadata ?? {};
  const acl = (doc.$acl ?? {}) as Record<string, unknown>;
  const [maxCount, setMaxCount] = useState(doc.$maxCount === undefined ? '' : String(doc.$maxCount));
  const [maxAge, setMaxAge] = useState(doc.$maxAge === undefined ? '' : String(doc.$maxAge));
  const [tb, setTb] = useState(doc.$tb === undefined ? '' : String(doc.$tb));
  const [cacheControl, setCacheControl] = useState(doc.$cacheControl === undefined ? '' : String(doc.$cacheControl));
  const [aclText, setAclText] = useState<Record<string, string>>(
    Object.fromEntries(ACL.map((a) => [a.key, roles(acl[a.key])])),
  );
  const custom = Object.fromEntries(Object.entries(doc).filter(([k]) => !RESERVED.has(k)));
  const [customText, setCustomText] = useState(Object.keys(custom).length ? JSON.stringify(custom, null, 2) : '');
  const { busy, error, setError, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    let next: Record<string, unknown>;
    try {
      const extra = customText.trim() ? JSON.parse(customText) : {};
      if (extra === null || typeof extra !== 'object' || Array.isArray(extra))
        throw new Error('Other keys must be a JSON object');
      next = { ...extra };
      const put = (k: string, v: unknown) => {
        if (v !== undefined) next[k] = v;
      };
      put('$maxCount', numberOrUndefined(maxCount, 'Max count', 1));
      put('$maxAge', numberOrUndefined(maxAge, 'Max age', 1));
      put('$tb', numberOrUndefined(tb, 'Truncate before', 0));
      put('$cacheControl', numberOrUndefined(cacheControl, 'Cache control', 0));
      const aclDoc: Record<string, string | string[]> = {};
      for (const a of ACL) {
        const list = aclText[a.key]
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
        if (list.length) aclDoc[a.key] = list.length === 1 ? list[0] : list;
      }
      if (Object.keys(aclDoc).length) next.$acl = aclDoc;
    } catch (err) {
      setError((err as Error).message);
      return;
    }
    await run(() => onSave(next));
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="form-grid">
        <Field label="Max count" help="Keep only the newest N events.">
          {(p) => (
            <input
              {...p}
              inputMode="numeric"
              value={maxCount}
              onChange={(e) => setMaxCount(e.target.value)}
              placeholder="no limit"
            />
          )}
        </Field>
        <Field label="Max age (seconds)" help="Hide events older than this (86400 = one day).">
          {(p) => (
            <input
              {...p}
              inputMode="numeric"
              value={maxAge}
              onChange={(e) => setMaxAge(e.target.value)}
              placeholder="no limit"
            />
          )}
        </Field>
        <Field
          label="Truncate before (tb)"
          help={`Events numbered below this become unreadable (the stream's last event is ${lastEventNumber}).`}
        >
          {(p) => (
            <input {...p} inputMode="numeric" value={tb} onChange={(e) => setTb(e.target.value)} placeholder="none" />
          )}
        </Field>
        <Field label="Cache control (seconds)">
          {(p) => (
            <input
              {...p}
              inputMode="numeric"
              value={cacheControl}
              onChange={(e) => setCacheControl(e.target.value)}
              placeholder="none"
            />
          )}
        </Field>
      </div>
      <fieldset>
        <legend>Access control (role or user names, comma separated; $all = everyone, $admins = administrators)</legend>
        <div className="form-grid">
          {ACL.map((a) => (
            <label key={a.key}>
              {a.label} ({a.key})
              <input
                value={aclText[a.key]}
                onChange={(e) => setAclText({ ...aclText, [a.key]: e.target.value })}
                placeholder="default"
              />
            </label>
          ))}
        </div>
      </fieldset>
      <label>
        Other keys (JSON object)
        <textarea
          className="mono"
          rows={3}
          value={customText}
          onChange={(e) => setCustomText(e.target.value)}
          spellCheck={false}
          placeholder='{"owner": "billing"}'
        />
      </label>
      <FormFooter error={error} onCancel={onCancel}>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save metadata'}
        </button>
      </FormFooter>
    </form>
  );
}

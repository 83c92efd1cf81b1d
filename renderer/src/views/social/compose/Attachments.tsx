import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import type { SocialMedia } from '../../../stores/social-client.ts';

/** Mastodon's limit of attachments per post. */
export const MAX_ATTACHMENTS = 4;

/** Where a picture's interest lies, in Mastodon's focus coordinates: x and y from -1 to 1, y up. */
export interface Focus {
  x: number;
  y: number;
}

/**
 * One file in the compose form, keyed by an id of its own: two pictures called `image.jpg` (as phones name
 * them) are two attachments with two uploads and two media ids.
 */
export interface Attachment {
  key: string;
  name: string;
  /** A local preview of a picture while it uploads (an object URL), null for video and audio. */
  preview: string | null;
  progress: number;
  media: SocialMedia | null;
  description: string;
  focus: Focus | null;
}

let lastKey = 0;

/** The attachments of a post being written: added (picked, pasted or dropped), removed, reordered and described. */
export function useAttachments(
  upload: (file: File, onProgress: (fraction: number) => void) => Promise<SocialMedia>,
  onError: (message: string) => void,
) {
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const count = useRef(0);
  count.current = attachments.length;
  const update = useCallback(
    (key: string, patch: Partial<Attachment>) =>
      setAttachments((list) => list.map((a) => (a.key === key ? { ...a, ...patch } : a))),
    [],
  );
  const attach = useCallback(
    (files: Iterable<File>) => {
      const room = MAX_ATTACHMENTS - count.current;
      const chosen = [...files].filter((f) => /^(image|video|audio)\//.test(f.type));
      if (chosen.length > room) onError(`A post holds up to ${MAX_ATTACHMENTS} images, videos or sounds.`);
      for (const file of chosen.slice(0, Math.max(room, 0))) {
        const entry: Attachment = {
          key: `attachment-${++lastKey}`,
          name: file.name || 'pasted picture',
          preview: file.type.startsWith('image/') ? URL.createObjectURL(file) : null,
          progress: 0,
          media: null,
          description: '',
          focus: null,
        };
        count.current += 1;
        setAttachments((list) => [...list, entry]);
        upload(file, (progress) => update(entry.key, { progress }))
          .then((media) => update(entry.key, { media, progress: 1 }))
          .catch((err: Error) => {
            onError(`${entry.name}: ${err.message}`);
            remove(entry.key);
          });
      }
    },
    [onError, update, upload],
  );
  const remove = (key: string) =>
    setAttachments((list) => {
      const gone = list.find((a) => a.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return list.filter((a) => a.key !== key);
    });
  const move = (key: string, step: -1 | 1) =>
    setAttachments((list) => {
      const from = list.findIndex((a) => a.key === key);
      const to = from + step;
      if (from < 0 || to < 0 || to >= list.length) return list;
      const next = [...list];
      [next[from], next[to]] = [next[to], next[from]];
      return next;
    });
  const clear = () =>
    setAttachments((list) => {
      for (const a of list) if (a.preview) URL.revokeObjectURL(a.preview);
      return [];
    });
  return { attachments, attach, remove, move, update, clear };
}

/** The list under the text: each attachment's upload, picture, description and focal point, with remove and move. */
export function AttachmentList({
  attachments,
  onRemove,
  onMove,
  onUpdate,
}: {
  attachments: Attachment[];
  onRemove: (key: string) => void;
  onMove: (key: string, step: -1 | 1) => void;
  onUpdate: (key: string, patch: Partial<Attachment>) => void;
}) {
  if (attachments.length === 0) return null;
  return (
    <ol className="attachments" aria-label="Attachments">
      {attachments.map((a, i) => (
        <li key={a.key} className="attachment" aria-label={`Attachment ${i + 1}: ${a.name}`}>
          <progress max={100} value={Math.round(a.progress * 100)} aria-label={`Upload of ${a.name}`} />
          <AttachmentPreview attachment={a} onFocus={(focus) => onUpdate(a.key, { focus })} />
          <div className="attachment-fields">
            <label>
              Description of attachment {i + 1}
              <textarea
                rows={2}
                maxLength={1500}
                value={a.description}
                onChange={(e) => onUpdate(a.key, { description: e.target.value })}
              />
            </label>
            {a.media && !a.description && <p className="muted">Add a description for people who cannot see it.</p>}
            {a.preview && <FocusFields focus={a.focus} onChange={(focus) => onUpdate(a.key, { focus })} />}
            <div className="toolbar">
              <button
                type="button"
                disabled={i === 0}
                onClick={() => onMove(a.key, -1)}
                aria-label={`Move attachment ${i + 1} earlier`}
              >
                ↑ Earlier
              </button>
              <button
                type="button"
                disabled={i === attachments.length - 1}
                onClick={() => onMove(a.key, 1)}
                aria-label={`Move attachment ${i + 1} later`}
              >
                ↓ Later
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => onRemove(a.key)}
                aria-label={`Remove attachment ${i + 1}`}
              >
                Remove
              </button>
            </div>
          </div>
        </li>
      ))}
    </ol>
  );
}

/** The picture; a click on it sets the focal point (the part kept when the picture is shown cropped). */
function AttachmentPreview({ attachment, onFocus }: { attachment: Attachment; onFocus: (focus: Focus) => void }) {
  const src = attachment.preview ?? attachment.media?.preview_url ?? null;
  if (!src) return <span className="attachment-placeholder">{attachment.media?.type ?? 'uploading'}</span>;
  const pick = (e: MouseEvent<HTMLImageElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * 2 - 1;
    const y = 1 - ((e.clientY - box.top) / box.height) * 2;
    onFocus({ x: round(x), y: round(y) });
  };
  const f = attachment.focus;
  return (
    <div className="attachment-preview">
      {/* The keyboard sets the same point with the two sliders beside it. */}
      <img src={src} alt="" onClick={pick} title="Click where the picture’s subject is" />
      {f && (
        <span
          className="focus-marker"
          aria-hidden="true"
          style={{ left: `${((f.x + 1) / 2) * 100}%`, top: `${((1 - f.y) / 2) * 100}%` }}
        />
      )}
    </div>
  );
}

function FocusFields({ focus, onChange }: { focus: Focus | null; onChange: (focus: Focus) => void }) {
  const f = focus ?? { x: 0, y: 0 };
  return (
    <fieldset className="focus-fields">
      <legend>Focal point {focus ? '' : '(centre)'}</legend>
      {(
        [
          ['x', 'Left to right'],
          ['y', 'Bottom to top'],
        ] as const
      ).map(([axis, label]) => (
        <label key={axis}>
          {label}
          <input
            type="range"
            min={-1}
            max={1}
            step={0.05}
            value={f[axis]}
            onChange={(e) => onChange({ ...f, [axis]: Number(e.target.value) })}
          />
        </label>
      ))}
    </fieldset>
  );
}

const round = (n: number) => Math.round(Math.min(1, Math.max(-1, n)) * 100) / 100;

/** Files dropped on or pasted into the compose form become attachments. */
export function useFileDrop(attach: (files: Iterable<File>) => void) {
  const [over, setOver] = useState(false);
  useEffect(() => {
    if (!over) return;
    const end = () => setOver(false);
    window.addEventListener('dragend', end);
    return () => window.removeEventListener('dragend', end);
  }, [over]);
  const hasFiles = (types: readonly string[]) => types.includes('Files');
  return {
    over,
    handlers: {
      onDragOver: (e: React.DragEvent) => {
        if (!hasFiles(e.dataTransfer.types)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      },
      onDragLeave: (e: React.DragEvent) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      },
      onDrop: (e: React.DragEvent) => {
        if (!hasFiles(e.dataTransfer.types)) return;
        e.preventDefault();
        setOver(false);
        attach(e.dataTransfer.files);
      },
      onPaste: (e: React.ClipboardEvent) => {
        const files = [...e.clipboardData.files];
        if (files.length === 0) return;
        e.preventDefault();
        attach(files);
      },
    },
  };
}

import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { SocialMedia } from '../../../stores/social-client.ts';

/**
 * A post's pictures shown whole, one at a time, with their descriptions: fitted to the window first, zoomed
 * to full size on request (the picture then scrolls), the left and right arrow keys (or the buttons) going
 * between them. Escape or Close ends it.
 */
export function MediaViewer({ items, start, onClose }: { items: SocialMedia[]; start: number; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [index, setIndex] = useState(start);
  const [zoomed, setZoomed] = useState(false);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const media = items[index];
  const go = (step: -1 | 1) => {
    const next = index + step;
    if (next < 0 || next >= items.length) return;
    setIndex(next);
    setZoomed(false);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowLeft') go(-1);
    else if (e.key === 'ArrowRight') go(1);
    else return;
    e.preventDefault();
  };
  const position = items.length > 1 ? ` ${index + 1} of ${items.length}` : '';
  return (
    <dialog ref={ref} className="media-viewer" aria-label={`Image${position}`} onClose={onClose} onKeyDown={onKey}>
      {/* Focusable when zoomed, so the keyboard can scroll a picture larger than the window. */}
      <div className={zoomed ? 'viewer-frame zoomed' : 'viewer-frame'} tabIndex={zoomed ? 0 : undefined}>
        <img
          src={media.url ?? media.preview_url ?? ''}
          alt={media.description ?? ''}
          onClick={() => setZoomed(!zoomed)}
          data-testid="viewer-image"
        />
      </div>
      <p className="viewer-description">
        {media.description ? media.description : <span className="muted">No description.</span>}
      </p>
      <div className="toolbar">
        {items.length > 1 && (
          <>
            <button type="button" onClick={() => go(-1)} disabled={index === 0} aria-label="Previous picture">
              ← Previous
            </button>
            <span className="muted">{position.trim()}</span>
            <button type="button" onClick={() => go(1)} disabled={index === items.length - 1} aria-label="Next picture">
              Next →
            </button>
          </>
        )}
        <button type="button" aria-pressed={zoomed} onClick={() => setZoomed(!zoomed)}>
          {zoomed ? 'Fit to window' : 'Full size'}
        </button>
        {media.url && (
          <a href={media.url} target="_blank" rel="noreferrer">
            Open the original
          </a>
        )}
        <button type="button" onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}

import { decode } from 'blurhash';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SocialMedia, SocialStatus } from '../../../stores/social-client.ts';
import { MediaViewer } from './MediaViewer.tsx';

/** A blurhash drawn small and stretched by CSS: the blurred stand-in for hidden or loading media. */
function BlurhashCanvas({ hash, label }: { hash: string; label: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return;
    try {
      const pixels = decode(hash, 32, 32);
      const image = context.createImageData(32, 32);
      image.data.set(pixels);
      context.putImageData(image, 0, 0);
    } catch {
      // A malformed hash from a remote server: the plain background shows instead.
    }
  }, [hash]);
  return <canvas ref={ref} width={32} height={32} className="blurhash" role="img" aria-label={label} />;
}

/** Where the picture's focal point says to keep in view when it is cropped (Mastodon's focus, -1..1 from the centre). */
function objectPosition(media: SocialMedia): string | undefined {
  const focus = media.meta?.focus;
  if (!focus) return undefined;
  return `${((focus.x + 1) / 2) * 100}% ${((1 - focus.y) / 2) * 100}%`;
}

/**
 * A status's media. Sensitive media (or media a filter asks to blur) stays hidden behind its blurhash until
 * asked for, unless the user chose to show it always; it can be hidden again.
 */
export function MediaList({ status, showSensitive = false }: { status: SocialStatus; showSensitive?: boolean }) {
  const [shown, setShown] = useState(!status.sensitive || showSensitive);
  const [viewing, setViewing] = useState<number | null>(null);
  const media = status.media_attachments ?? [];
  const hashed = useMemo(() => media.find((m) => m.blurhash)?.blurhash ?? null, [media]);
  // The viewer goes between the pictures (videos and sounds play in place).
  const pictures = media.filter((m) => m.type === 'image' || m.type === 'gifv');
  if (!shown)
    return (
      <div className="media hidden-media">
        {hashed && <BlurhashCanvas hash={hashed} label="Sensitive media, hidden" />}
        <button type="button" className="reveal" onClick={() => setShown(true)}>
          Sensitive content: show
        </button>
      </div>
    );
  return (
    <div className="media">
      {media.map((m) =>
        m.type === 'image' || m.type === 'gifv' ? (
          <button
            key={m.id}
            type="button"
            className="media-open"
            aria-label={`View ${m.description ? `image: ${m.description}` : 'image'}`}
            onClick={() => setViewing(pictures.indexOf(m))}
          >
            <img
              src={m.preview_url ?? m.url ?? ''}
              alt={m.description ?? ''}
              style={{ objectPosition: objectPosition(m) }}
            />
          </button>
        ) : m.type === 'video' ? (
          <video
            key={m.id}
            src={m.url ?? undefined}
            poster={m.preview_url ?? undefined}
            controls
            preload="none"
            aria-label={m.description ?? 'Video'}
          />
        ) : m.type === 'audio' ? (
          <audio key={m.id} src={m.url ?? undefined} controls preload="none" aria-label={m.description ?? 'Audio'} />
        ) : (
          <a key={m.id} href={m.url ?? undefined} target="_blank" rel="noreferrer">
            {m.type} {m.description ? `(${m.description})` : ''}
          </a>
        ),
      )}
      {status.sensitive && (
        <button type="button" className="hide-media" onClick={() => setShown(false)}>
          Hide media
        </button>
      )}
      {viewing !== null && <MediaViewer items={pictures} start={viewing} onClose={() => setViewing(null)} />}
    </div>
  );
}

import type { MediaMeta, MediaRow } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import { isPublicMediaUrl, isSvg, type RemoteMediaRules, STRICT_REMOTE_MEDIA } from './remote-media.ts';

/** "H:MM:SS.ss", the way Mastodon prints media lengths. */
export function mediaLength(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds - h * 3600 - m * 60;
  return `${h}:${String(m).padStart(2, '0')}:${s.toFixed(2).padStart(5, '0')}`;
}

function size(w: number, h: number) {
  return { width: w, height: h, size: `${w}x${h}`, aspect: h > 0 ? w / h : 1 };
}

function serializeMeta(meta: MediaMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (meta.duration !== undefined) {
    out.length = mediaLength(meta.duration);
    out.duration = meta.duration;
  }
  if (meta.audioEncode) out.audio_encode = meta.audioEncode;
  if (meta.audioBitrate) out.audio_bitrate = meta.audioBitrate;
  if (meta.audioChannels) out.audio_channels = meta.audioChannels;
  if (meta.original) {
    const o = meta.original;
    out.original = {
      ...(o.width && o.height ? size(o.width, o.height) : {}),
      ...(o.frameRate ? { frame_rate: o.frameRate } : {}),
      ...(o.duration !== undefined ? { duration: o.duration } : {}),
      ...(o.bitrate !== undefined ? { bitrate: Math.round(o.bitrate) } : {}),
    };
    if (o.width && o.height && meta.duration !== undefined)
      Object.assign(out, {
        width: o.width,
        height: o.height,
        size: `${o.width}x${o.height}`,
        aspect: o.width / o.height,
      });
  }
  if (meta.small) out.small = size(meta.small.width, meta.small.height);
  if (meta.focus) out.focus = { x: meta.focus.x, y: meta.focus.y };
  return out;
}

/**
 * The MediaAttachment entity; url is null until processing is done, preview_url null without a preview. A
 * remote attachment is a link to its origin: one on a host clients must not be sent to has no address at all,
 * and an SVG is no image (see remote-media.ts); both show as Mastodon's "unknown" attachment.
 */
export function serializeMedia(
  urls: SocialUrls,
  m: MediaRow,
  rules: RemoteMediaRules = STRICT_REMOTE_MEDIA,
): Record<string, unknown> & { id: string } {
  const done = m.processing === 'done';
  const preview = m.thumbnailPath ?? m.previewPath;
  const remoteUrl = m.remoteUrl && isPublicMediaUrl(m.remoteUrl, rules) ? m.remoteUrl : null;
  const refused =
    m.filePath === null && m.remoteUrl !== null && (remoteUrl === null || isSvg(remoteUrl, m.contentType));
  return {
    id: m.id,
    type: refused ? 'unknown' : m.type,
    // Remote attachments are links to their origin (not downloaded).
    url: done && m.filePath ? urls.media(m.filePath) : refused ? null : remoteUrl,
    preview_url: done && preview ? urls.media(preview) : null,
    remote_url: remoteUrl,
    preview_remote_url: null,
    text_url: null,
    meta: serializeMeta(m.meta),
    description: m.description,
    blurhash: m.blurhash,
  };
}

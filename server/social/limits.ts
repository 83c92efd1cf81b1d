/**
 * The limits the social server enforces and advertises (instance configuration). Part 2's statuses,
 * media and polls must enforce exactly these numbers, so they live here once.
 */
export const LIMITS = {
  accounts: {
    max_featured_tags: 10,
    max_pinned_statuses: 5,
    max_display_name_length: 30,
    max_note_length: 500,
    max_profile_fields: 4,
    profile_field_name_limit: 255,
    profile_field_value_limit: 255,
    max_avatar_description_length: 1500,
    max_header_description_length: 1500,
  },
  statuses: { max_characters: 500, max_media_attachments: 4, characters_reserved_per_url: 23 },
  media_attachments: {
    supported_mime_types: [
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
      'image/avif',
      'image/heic',
      'image/heif',
      'video/mp4',
      'video/webm',
      'video/quicktime',
      'audio/mpeg',
      'audio/mp3',
      'audio/ogg',
      'audio/vorbis',
      'audio/wav',
      'audio/wave',
      'audio/x-wav',
      'audio/flac',
      'audio/aac',
      'audio/mp4',
      'audio/m4a',
      'audio/x-m4a',
      'audio/webm',
    ],
    image_size_limit: 16 * 1024 * 1024,
    image_matrix_limit: 33_177_600,
    video_size_limit: 99 * 1024 * 1024,
    video_frame_rate_limit: 120,
    video_matrix_limit: 8_294_400,
    description_limit: 1500,
  },
  polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 },
} as const;

/** The Mastodon API level we implement, as clients compare it (see instance `version` and `api_versions`). */
export const MASTODON_COMPAT_VERSION = '4.5.0';
/**
 * `api_versions.mastodon`, the highest level whose every feature we serve (api-versions.test.ts walks them):
 * 2 grouped notifications, 3 attribution domains, 4 deleting media (and a post's with `delete_media`),
 * 5 blurring filters, 7 quote posts (6 names no feature of its own). Clients gate on it: Phanpy offers quotes from 7.
 */
export const MASTODON_API_VERSION = 7;

/** Files each upload route accepts in one multipart body, each at most `fileSize` bytes (the type's own limit is checked after). */
export const UPLOADS = {
  /** A media attachment (image, video or audio) and its optional thumbnail. */
  media: { files: 2, fileSize: LIMITS.media_attachments.video_size_limit },
  /** Images only: a new thumbnail, or an avatar and a header. */
  images: { files: 2, fileSize: LIMITS.media_attachments.image_size_limit },
} as const;

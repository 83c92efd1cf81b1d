/** RFC 3339 with milliseconds and Z, as Mastodon prints datetimes. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}

/** The date part (YYYY-MM-DD, UTC). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Midnight UTC of the day, which Mastodon shows as an account's created_at. */
export function midnight(ms: number): string {
  return `${isoDate(ms)}T00:00:00.000Z`;
}

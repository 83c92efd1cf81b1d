/** RFC 3339 with milliseconds and Z, as Mastodon prints datetimes. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}

/** The date part (YYYY-MM-DD, UTC). */
export function isoDate(ms: number): string {
  // Formatted once per day (an account's last_status_at on every page it appears on).
  const day = Math.floor(ms / DAY_MS);
  let text = days.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (days.size >= 4_096) days.clear();
    days.set(day, text);
  }
  return text;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const days = new Map<number, string>();

/** Midnight UTC of the day, which Mastodon shows as an account's created_at. */
export function midnight(ms: number): string {
  return `${isoDate(ms)}T00:00:00.000Z`;
}

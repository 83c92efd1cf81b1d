/** A JSON object as read from a remote document (ActivityPub, JSON-LD, a web page's metadata). */
export type JsonRecord = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not an array), to read its fields. */
export function isJsonRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

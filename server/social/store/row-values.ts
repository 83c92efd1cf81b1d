/* Column values as SQLite hands them (BigInt integers, 0/1 booleans, JSON text) and back. */

/** Values SQLite accepts as parameters (booleans are stored as 0/1). */
export type SqlValue = string | number | bigint | null | Buffer;

export function str(v: unknown): string {
  return typeof v === 'bigint' ? v.toString() : String(v);
}
export function idOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : str(v);
}
export function int(v: unknown): number {
  return Number(v);
}
export function intOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}
export function bool(v: unknown): boolean {
  return v !== null && v !== undefined && v !== 0n && v !== 0;
}
export function boolOrNull(v: unknown): boolean | null {
  return v === null || v === undefined ? null : bool(v);
}
export function sqlBool(v: boolean): number {
  return v ? 1 : 0;
}
export function sqlBoolOrNull(v: boolean | null | undefined): number | null {
  return v === null || v === undefined ? null : v ? 1 : 0;
}
export function jsonOr<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/**
 * A list of ids as a JSON array of integers, for `IN (SELECT value FROM json_each(?))`: one statement
 * text whatever the list's length, so it is prepared once.
 */
export function jsonIds(ids: readonly string[]): string {
  return `[${ids.join(',')}]`;
}

/** The renderer talks to Homeport only over HTTP/WebSocket, so it works the same in Electron and a browser. */
export const UI_API = '/api/homeport/v1';

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

let token: string | null = null;
/** Origin of the HTTP server; empty in the app (same origin), set by tests that run outside a page. */
let base = '';
let onUnauthorized: (() => void) | null = null;

export function setApiToken(next: string | null): void {
  token = next;
}
export function setApiBase(origin: string): void {
  base = origin.replace(/\/$/, '');
}
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

/** JSON request (or a file's upload) to the UI API; a server error surfaces as an ApiError carrying the server's own message. */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  // A file goes as itself, typed by its own content type; everything else as JSON.
  const file = init.body instanceof Blob ? init.body : null;
  if (init.body !== undefined)
    headers['content-type'] = file ? file.type || 'application/octet-stream' : 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${UI_API}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : (file ?? JSON.stringify(init.body)),
      signal: init.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'Homeport is not reachable. Is the server running?');
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text };
  }
  if (!res.ok) {
    if (res.status === 401 && onUnauthorized) onUnauthorized();
    const message =
      (data as { error?: string; message?: string } | null)?.error ?? (data as { message?: string } | null)?.message;
    throw new ApiError(res.status, message ?? `${res.status} ${res.statusText}`);
  }
  return data as T;
}

/** Query string from an object, leaving out undefined/null/empty values. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** WebSocket URL for a UI API path; the token rides in the query because browsers cannot set headers on WebSockets. */
export function wsUrl(path: string, params: Record<string, string | number | boolean | undefined | null> = {}): string {
  const origin = base || window.location.origin;
  const url = new URL(`${origin}${UI_API}${path}${qs({ ...params, access_token: token })}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

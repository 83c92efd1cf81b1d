import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LogEntry {
  time: number;
  level: string;
  msg: string;
  line: string;
}

/** Keeps the newest log lines in memory for the Server view's log tail. */
export class LogRing {
  readonly entries: LogEntry[] = [];
  private listeners = new Set<(e: LogEntry) => void>();
  readonly capacity: number;
  constructor(capacity = 2000) {
    this.capacity = capacity;
  }

  push(line: string): void {
    let parsed: { time?: number; level?: number; msg?: string } = {};
    try {
      parsed = JSON.parse(line);
    } catch {
      /* keep the raw line */
    }
    const entry: LogEntry = {
      time: parsed.time ?? Date.now(),
      level: pino.levels.labels[parsed.level ?? 30] ?? 'info',
      msg: parsed.msg ?? line,
      line,
    };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    for (const l of this.listeners) l(entry);
  }

  subscribe(listener: (e: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Paths that may carry secrets; pino replaces them before a line is written anywhere. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.access_token',
  '*.client_secret',
];

/** Query parameters that carry credentials (OAuth codes, tokens, e-mail confirmation links). */
const SECRET_QUERY_PARAMS =
  /([?&](?:access_token|token|code|confirmation_token|reset_password_token|password|client_secret|code_verifier)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[Redacted]');
}

export function createLogger(options: { level: string; toConsole: boolean; ring: LogRing }): Logger {
  const ringStream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line) options.ring.push(line);
      cb();
    },
  });
  const streams: pino.StreamEntry[] = [{ level: 'trace', stream: ringStream }];
  // stderr, so stdout stays for the CLI's own output (the listener lines).
  if (options.toConsole) streams.push({ level: 'trace', stream: pino.destination({ fd: 2, sync: true }) });
  return pino(
    {
      level: options.level,
      redact: REDACT,
      base: undefined,
      serializers: {
        req: (req: { method?: string; url?: string; socket?: { remoteAddress?: string } }) => ({
          method: req.method,
          url: req.url === undefined ? undefined : redactUrl(req.url),
          remoteAddress: req.socket?.remoteAddress,
        }),
      },
    },
    pino.multistream(streams),
  );
}

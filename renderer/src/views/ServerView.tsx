import { useEffect } from 'react';
import { useServer, type LogEntry } from '../stores/server.ts';
import { useSession } from '../stores/session.ts';
import { connectionStrings, connectionUser, PASSWORD_PLACEHOLDER } from './server/connection-strings.ts';
import {
  CopyButton,
  Empty,
  ErrorState,
  formatBytes,
  formatTime,
  Loading,
  numeric,
  TableHead,
} from '../components/ui.tsx';
import { BackupSection } from './server/BackupSection.tsx';
import { FederationCheckSection } from './server/FederationCheckSection.tsx';
import { ScavengeSection } from './server/ScavengeSection.tsx';
import { TokensSection } from './server/TokensSection.tsx';
import { UsersSection } from './server/UsersSection.tsx';
import { useMonitor } from '../stores/monitor.ts';
import { ActivityCharts } from './subscriptions/ActivityCharts.tsx';

const LISTENER_NAMES: Record<string, string> = {
  'eventlog-tcp': 'Event log (TCP)',
  'eventlog-tls': 'Event log (TLS)',
  'eventlog-grpc': 'Event log (gRPC)',
  http: 'HTTP: this UI and the Mastodon API',
};

const HIDDEN_LOG_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** The interesting fields of a log line besides its message (request URL, status, error…), compactly. */
function logDetails(e: LogEntry): string {
  try {
    const parsed = JSON.parse(e.line) as Record<string, unknown>;
    const rest = Object.fromEntries(Object.entries(parsed).filter(([k]) => !HIDDEN_LOG_KEYS.has(k)));
    const text = Object.keys(rest).length ? JSON.stringify(rest) : '';
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return '';
  }
}

/** Listeners with connection strings, the data directory and databases, version, event-log users and the log. */
export function ServerView() {
  const { info, loading, error, load, logs, loadLogs, logLevel, logQuery, setLogFilter } = useServer();
  const activity = useMonitor((m) => m.activity);
  const user = connectionUser(useSession((s) => s.user));
  // The activity charts sample the event log every second while this view is open.
  useEffect(() => useMonitor.getState().watch(1000), []);
  useEffect(() => {
    void load();
    void loadLogs();
    const timer = setInterval(() => void loadLogs(), 2000);
    return () => clearInterval(timer);
  }, [load, loadLogs]);

  if (error && !info) return <ErrorState message={error} onRetry={() => void load()} />;
  if (loading && !info) return <Loading />;
  if (!info) return null;
  return (
    <section aria-labelledby="server-title" className="view">
      <h1 id="server-title">Server</h1>
      <dl className="facts">
        <dt>Version</dt>
        <dd data-testid="server-version">{info.version}</dd>
        <dt>Data directory</dt>
        <dd>
          <code>{info.dataDir}</code> <CopyButton text={info.dataDir} label="Copy data directory" />
        </dd>
        <dt>Started</dt>
        <dd>{new Date(info.startedAt).toLocaleString()}</dd>
      </dl>

      <h2>Activity</h2>
      <ActivityCharts activity={activity} groups={false} />

      <h2>Listeners</h2>
      <p className="muted">
        Connection strings for <strong>{user}</strong>. Homeport never shows a password: the snippets read it from the{' '}
        <code>HOMEPORT_PASSWORD</code> environment variable; put yours in place of <code>{PASSWORD_PLACEHOLDER}</code>{' '}
        in the others.
      </p>
      <table className="table" aria-label="Listeners">
        <TableHead columns={['Listener', 'Address', 'Connect with']} />
        <tbody>
          {info.listeners.map((l) => (
            <tr key={l.name}>
              <th scope="row">{LISTENER_NAMES[l.name] ?? l.name}</th>
              <td className="nowrap">
                <code>{l.address}</code>
              </td>
              <td>
                <dl className="conn-list">
                  {connectionStrings(l, user).map((c) => (
                    <div key={c.label} className="conn">
                      <dt className="muted">{c.label}</dt>
                      <dd>
                        <code>{c.text}</code>{' '}
                        <CopyButton
                          text={c.text}
                          label={`Copy ${c.label} connection string for ${LISTENER_NAMES[l.name] ?? l.name}`}
                        />
                      </dd>
                    </div>
                  ))}
                </dl>
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Databases</h2>
      <table className="table" aria-label="Databases">
        <TableHead columns={['Database', 'File', numeric('Size')]} />
        <tbody>
          {info.databases.map((d) => (
            <tr key={d.name}>
              <th scope="row">{d.name === 'eventlog' ? 'Event log' : d.name === 'social' ? 'Social' : d.name}</th>
              <td>
                <code>{d.file}</code>
              </td>
              <td className="num">{formatBytes(d.bytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <ScavengeSection />
      <BackupSection />
      <FederationCheckSection />

      <UsersSection />
      <TokensSection />

      <h2>Log</h2>
      <div className="toolbar">
        <label>
          Level
          <select value={logLevel} onChange={(e) => setLogFilter(e.target.value, logQuery)}>
            {['trace', 'debug', 'info', 'warn', 'error'].map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <label>
          Contains
          <input type="search" value={logQuery} onChange={(e) => setLogFilter(logLevel, e.target.value)} />
        </label>
        <span className="muted">Newest first; refreshed every 2 seconds.</span>
      </div>
      {logs.length === 0 ? (
        <Empty>No log lines at this level{logQuery ? ' containing that text' : ''}.</Empty>
      ) : (
        // Focusable: it scrolls, and the keyboard scrolls it once it has focus.
        <ol className="log" aria-label="Server log" tabIndex={0}>
          {[...logs].reverse().map((e, i) => (
            <li key={`${e.time}-${i}`} className={`log-${e.level}`}>
              <time dateTime={new Date(e.time).toISOString()} title={formatTime(e.time)}>
                {new Date(e.time).toLocaleTimeString()}
              </time>{' '}
              <span className="level">{e.level}</span> {e.msg} <span className="muted">{logDetails(e)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

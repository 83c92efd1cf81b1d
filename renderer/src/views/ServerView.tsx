import { useEffect } from 'react';
import { useServer, type LogEntry } from '../stores/server.ts';
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
import { UsersSection } from './server/UsersSection.tsx';
import { useMonitor } from '../stores/monitor.ts';
import { useSession } from '../stores/session.ts';
import { ActivityCharts } from './subscriptions/ActivityCharts.tsx';

const LISTENER_NAMES: Record<string, string> = {
  'eventlog-tcp': 'Event log (TCP)',
  'eventlog-tls': 'Event log (TLS)',
  'eventlog-grpc': 'Event log (KurrentDB gRPC)',
  http: 'HTTP: this UI and the Mastodon API',
};

/** What to paste into a client for each listener. */
export function connectionStrings(
  listener: {
    name: string;
    address: string;
    url: string;
  },
  userName?: string,
): { label: string; text: string }[] {
  if (listener.name === 'eventlog-grpc') {
    // The signed-in account's name, never a password; cleartext (tls=false) takes no credentials.
    const credentials = userName && !listener.url.includes('tls=false') ? `${userName}:<password>@` : '';
    return [
      {
        label: 'KurrentDB / EventStoreDB gRPC clients',
        text: listener.url.replace('kurrentdb://', `kurrentdb://${credentials}`),
      },
    ];
  }
  if (listener.name === 'eventlog-tcp') {
    return [
      {
        label: 'node-eventstore-client',
        text: `EventStore.createConnection({ defaultUserCredentials: new EventStore.UserCredentials('admin', 'changeit') }, '${listener.url}')`,
      },
      {
        label: '.NET EventStore.ClientAPI',
        text: `ConnectTo=${listener.url};DefaultUserCredentials=admin:changeit;UseSslConnection=false`,
      },
    ];
  }
  if (listener.name === 'eventlog-tls') {
    return [
      {
        label: 'node-eventstore-client',
        text: `EventStore.createConnection({ useSslConnection: true, validateServer: false, defaultUserCredentials: new EventStore.UserCredentials('admin', 'changeit') }, '${listener.url}')`,
      },
      {
        label: '.NET EventStore.ClientAPI',
        text: `ConnectTo=${listener.url};DefaultUserCredentials=admin:changeit;UseSslConnection=true;ValidateServer=false`,
      },
    ];
  }
  return [{ label: 'Mastodon apps (server address)', text: listener.url }];
}

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
  const sessionUser = useSession((s) => s.user?.name);
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
                  {connectionStrings(l, sessionUser).map((c) => (
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

      <BackupSection />
      <FederationCheckSection />

      <UsersSection />

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
        <ol className="log" aria-label="Server log">
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

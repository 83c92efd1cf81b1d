import { useEffect } from 'react';
import { useServer } from '../stores/server.ts';
import { CopyButton, ErrorState, formatBytes, Loading } from '../components/ui.tsx';

function connectionStrings(listener: { name: string; address: string; url: string }): { label: string; text: string }[] {
  if (listener.name === 'eventlog-tcp') {
    return [
      { label: 'node-eventstore-client', text: `createConnection({ defaultUserCredentials: new UserCredentials('admin', 'changeit') }, '${listener.url}')` },
      { label: '.NET EventStore.ClientAPI', text: `ConnectTo=${listener.url};DefaultUserCredentials=admin:changeit;UseSslConnection=false` },
    ];
  }
  if (listener.name === 'eventlog-tls') {
    return [
      { label: 'node-eventstore-client (TLS)', text: `createConnection({ useSslConnection: true, validateServer: false }, '${listener.url}')` },
      { label: '.NET EventStore.ClientAPI (TLS)', text: `ConnectTo=${listener.url};UseSslConnection=true;ValidateServer=false` },
    ];
  }
  return [{ label: 'Mastodon apps', text: listener.url }];
}

export function ServerView() {
  const { info, loading, error, load, logs, loadLogs, logLevel, logQuery, setLogFilter } = useServer();
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
          <code>{info.dataDir}</code>
        </dd>
        <dt>Started</dt>
        <dd>{new Date(info.startedAt).toLocaleString()}</dd>
      </dl>

      <h2>Listeners</h2>
      <table className="table" aria-label="Listeners">
        <thead>
          <tr>
            <th scope="col">Listener</th>
            <th scope="col">Address</th>
            <th scope="col">Connect with</th>
          </tr>
        </thead>
        <tbody>
          {info.listeners.map((l) => (
            <tr key={l.name}>
              <td>{l.name}</td>
              <td>
                <code>{l.address}</code>
              </td>
              <td>
                {connectionStrings(l).map((c) => (
                  <div key={c.label} className="conn">
                    <span className="muted">{c.label}</span> <code>{c.text}</code> <CopyButton text={c.text} label={`Copy ${c.label} connection string`} />
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Databases</h2>
      <table className="table" aria-label="Databases">
        <thead>
          <tr>
            <th scope="col">Database</th>
            <th scope="col">File</th>
            <th scope="col">Size</th>
          </tr>
        </thead>
        <tbody>
          {info.databases.map((d) => (
            <tr key={d.name}>
              <td>{d.name}</td>
              <td>
                <code>{d.file}</code>
              </td>
              <td>{formatBytes(d.bytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>

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
      </div>
      <ol className="log" aria-label="Server log">
        {logs.map((e, i) => (
          <li key={`${e.time}-${i}`} className={`log-${e.level}`}>
            <time>{new Date(e.time).toLocaleTimeString()}</time> <span className="level">{e.level}</span> {e.msg}
          </li>
        ))}
      </ol>
    </section>
  );
}

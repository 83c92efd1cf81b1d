import { FormError } from '../../components/ui.tsx';
import { useFederationCheck } from '../../stores/federation-check.ts';

const LABELS: Record<string, string> = {
  'public-url': 'Public address',
  dns: 'DNS',
  reach: 'Reachable',
  proxy: 'Proxy',
  nodeinfo: 'NodeInfo',
  webfinger: 'WebFinger',
  actor: 'Actor',
};

/** Whether other servers can reach this instance: its own documents fetched through the public address. */
export function FederationCheckSection() {
  const { report, running, error, run } = useFederationCheck();
  return (
    <>
      <h2 id="federation-check-title">Federation</h2>
      <div className="toolbar">
        <button type="button" onClick={() => void run()} disabled={running} aria-describedby="federation-check-help">
          {running ? 'Checking…' : 'Check federation'}
        </button>
      </div>
      <p className="muted" id="federation-check-help">
        Fetches this instance’s WebFinger, actor and NodeInfo through its public address, as another server would. The
        same check runs from a terminal: <code>homeport federation check</code>.
      </p>
      <FormError message={error} />
      {report && (
        <table aria-labelledby="federation-check-title" className="federation-check">
          <caption>
            {report.publicUrl}:{' '}
            {report.ok ? 'other servers can reach this instance' : 'other servers cannot federate with it yet'}
          </caption>
          <tbody>
            {report.checks.map((c) => (
              <tr key={c.name} data-check={c.name} data-status={c.status}>
                <th scope="row">{LABELS[c.name] ?? c.name}</th>
                <td className={`check-${c.status}`}>{c.status}</td>
                <td>{c.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

import { FormError } from '../../components/ui.tsx';
import { useFederationCheck, type SelfCheckReport } from '../../stores/federation-check.ts';

const LABELS: Record<string, string> = {
  'public-url': 'Public address',
  dns: 'DNS',
  reach: 'Reachable',
  proxy: 'Proxy',
  nodeinfo: 'NodeInfo',
  webfinger: 'WebFinger',
  actor: 'Actor',
};

const MARKS: Record<string, string> = { ok: '✓ ok', warning: '⚠ warning', error: '✗ error', skipped: '– skipped' };

/** The verdict over every check: a warning is not a pass (an http or localhost address cannot federate). */
export function verdict(report: SelfCheckReport): { tone: 'ok' | 'warning' | 'error'; text: string } {
  const errors = report.checks.filter((c) => c.status === 'error').length;
  const warnings = report.checks.filter((c) => c.status === 'warning').length;
  if (!report.ok || errors > 0)
    return { tone: 'error', text: `other servers cannot federate with it yet (${plural(errors, 'error')})` };
  if (warnings > 0)
    return { tone: 'warning', text: `not ready for other servers yet: ${plural(warnings, 'warning')} below` };
  return { tone: 'ok', text: 'other servers can reach this instance' };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

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
        <table aria-labelledby="federation-check-title" className="table federation-check">
          <caption className={`check-${verdict(report).tone}`} data-testid="federation-verdict">
            {report.publicUrl}: {verdict(report).text}
          </caption>
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Result</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {report.checks.map((c) => (
              <tr key={c.name} data-check={c.name} data-status={c.status}>
                <th scope="row">{LABELS[c.name] ?? c.name}</th>
                <td className={`check-${c.status} nowrap`}>{MARKS[c.status] ?? c.status}</td>
                <td>{c.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

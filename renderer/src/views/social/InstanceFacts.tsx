import { useEffect, useState } from 'react';
import { ErrorState, Loading } from '../../components/ui.tsx';

interface InstanceSummary {
  domain: string;
  title: string;
  version: string;
  registrations?: { enabled: boolean; approval_required: boolean };
}

/** The social server as Mastodon apps see it (its public instance document). */
export function InstanceFacts() {
  const [instance, setInstance] = useState<InstanceSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    setError(null);
    fetch('/api/v2/instance', { headers: { accept: 'application/json' } })
      .then(async (r) => {
        if (!r.ok) throw new Error(`The social server answered ${r.status}`);
        setInstance((await r.json()) as InstanceSummary);
      })
      .catch((e: Error) => setError(e.message));
  };
  useEffect(load, []);
  if (error) return <ErrorState message={error} onRetry={load} />;
  if (!instance) return <Loading />;
  return (
    <dl className="facts">
      <dt>Domain</dt>
      <dd>{instance.domain}</dd>
      <dt>Title</dt>
      <dd>{instance.title}</dd>
      <dt>Mastodon API version</dt>
      <dd>{instance.version}</dd>
      <dt>Registrations</dt>
      <dd>
        {instance.registrations?.enabled
          ? instance.registrations.approval_required
            ? 'open, with approval'
            : 'open'
          : 'closed'}
      </dd>
    </dl>
  );
}

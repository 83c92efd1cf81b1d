import { useEffect, useState, type FormEvent } from 'react';
import { FormError } from '../../components/ui.tsx';
import { useBackup } from '../../stores/backup.ts';

/** Copies both databases, media and keys to a folder while everything keeps running. */
export function BackupSection() {
  const { job, error, start, refresh } = useBackup();
  const [directory, setDirectory] = useState('');
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const running = job?.state === 'running';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void start(directory);
  };
  return (
    <>
      <h2 id="backup-title">Backup</h2>
      <form className="toolbar" onSubmit={submit} aria-labelledby="backup-title">
        <label>
          Folder on this computer (new or empty)
          <input
            name="backup-directory"
            value={directory}
            onChange={(e) => setDirectory(e.target.value)}
            placeholder="/home/you/homeport-backup-2026-11-24"
            required
          />
        </label>
        <button type="submit" className="primary" disabled={running}>
          {running ? 'Backing up…' : 'Back up now'}
        </button>
      </form>
      <FormError message={error ?? (job?.state === 'failed' ? job.error : null)} />
      {job && job.state !== 'idle' && (
        <div className="backup-progress">
          <progress max={100} value={Math.round(job.fraction * 100)} aria-label="Backup progress" />{' '}
          <span role="status">
            {job.state === 'running' && `${Math.round(job.fraction * 100)}% — ${job.step ?? 'starting'}`}
            {job.state === 'done' &&
              job.result &&
              `Backed up ${job.result.databases.map((d) => d.name).join(', ')} and ${job.result.files} files to ${job.directory}`}
            {job.state === 'failed' && 'Backup failed'}
          </span>
        </div>
      )}
      <p className="muted">
        Restore with <code>homeport restore FOLDER</code> while Homeport is stopped.
      </p>
    </>
  );
}

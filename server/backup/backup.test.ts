import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExpectedVersion } from '../eventlog/index.ts';
import { runCli } from '../cli/main.ts';
import type { Homeport } from '../index.ts';
import { startTestHomeport } from '../testing/homeport.ts';

const BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'homeport.js');
const ADMIN = { name: 'admin', groups: ['$admins'] };
const dirs: string[] = [];
const tempDir = (name: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `homeport-${name}-`));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
/** The CLI in a child process while this one keeps serving (spawnSync would freeze the server meanwhile). */
function cliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
const event = (i: number) => ({
  eventId: crypto.randomUUID(),
  eventType: 'Tick',
  isJson: true,
  data: Buffer.from(JSON.stringify({ i })),
  metadata: Buffer.from('{}'),
});

async function start(dataDir: string): Promise<Homeport> {
  return startTestHomeport(dataDir, { logLevel: 'warn' });
}

describe('homeport backup and restore', () => {
  it('snapshots a running server under writes, and the restore serves the same data', async () => {
    const dataDir = tempDir('backup-source');
    const hp = await start(dataDir);
    let acknowledged = 0;
    let restored: Homeport | null = null;
    try {
      for (let i = 0; i < 200; i++)
        await hp.eventLog.store.appendToStream('ticks', ExpectedVersion.Any, [event(i)], ADMIN);
      acknowledged = 200;
      const { token } = await hp.social.admin
        .createAccount({
          username: 'keeper',
          email: 'keeper@example.org',
          role: 'owner',
          confirmed: true,
          approved: true,
        })
        .then(() => hp.social.admin.createToken('keeper', 'read write'));
      const posted = await fetch(`${hp.httpUrl}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'kept safe' }),
      });
      expect(posted.status).toBe(200);
      const media = await hp.social.context.media.write('media_attachments/files', 'png', Buffer.from('picture'));

      // Writers keep going while the backup runs in another process.
      let writing = true;
      const writer = (async () => {
        for (let i = 200; writing; i++) {
          await hp.eventLog.store.appendToStream('ticks', ExpectedVersion.Any, [event(i)], ADMIN);
          await new Promise((r) => setImmediate(r));
        }
      })();
      const backupDir = path.join(tempDir('backup-target'), 'snapshot');
      const made = await cliAsync(['backup', backupDir, '--data-dir', dataDir]);
      writing = false;
      await writer;
      const writtenMeanwhile = hp.eventLog.store.readStreamForward('ticks', 0, 4096, false, ADMIN).events.length - 200;
      expect(writtenMeanwhile).toBeGreaterThan(0);
      expect(made.status, made.stderr).toBe(0);
      expect(made.stdout).toMatch(/backed up eventlog\.db, social\.db and \d+ files/);
      expect(made.stderr).toMatch(/100% /);
      expect(fs.statSync(backupDir).mode & 0o077).toBe(0);

      // Restoring onto a running server is refused.
      const refused = cli(['restore', backupDir, '--data-dir', dataDir]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/server is running/);

      const target = tempDir('restore-target');
      const put = cli(['restore', backupDir, '--data-dir', target]);
      expect(put.status, put.stderr).toBe(0);
      restored = await start(target);
      const ticks = restored.eventLog.store.readStreamForward('ticks', 0, 4096, false, ADMIN).events;
      expect(ticks.length).toBeGreaterThanOrEqual(acknowledged);
      expect(ticks.map((e) => e.event!.eventNumber)).toEqual(ticks.map((_, i) => i));
      const timeline = await fetch(`${restored.httpUrl}/api/v1/accounts/lookup?acct=keeper`);
      expect(timeline.status).toBe(200);
      const account = (await timeline.json()) as { id: string };
      const statuses = (await (await fetch(`${restored.httpUrl}/api/v1/accounts/${account.id}/statuses`)).json()) as {
        content: string;
      }[];
      expect(statuses.map((s) => s.content)).toEqual(['<p>kept safe</p>']);
      expect(fs.readFileSync(restored.social.context.media.absolute(media), 'utf8')).toBe('picture');
      expect(fs.readdirSync(path.join(target, 'tls')).sort()).toEqual(fs.readdirSync(path.join(dataDir, 'tls')).sort());
    } finally {
      await restored?.close();
      await hp.close();
    }
  });

  it('refuses a non-empty target, a target inside the data directory and a folder that is no backup', () => {
    const dataDir = tempDir('backup-refusals');
    fs.writeFileSync(path.join(dataDir, 'social.db'), '');
    const full = tempDir('backup-full');
    fs.writeFileSync(path.join(full, 'something'), 'x');
    expect(cli(['backup', full, '--data-dir', dataDir]).stderr).toMatch(/is not empty/);
    expect(cli(['backup', path.join(dataDir, 'inner'), '--data-dir', dataDir]).stderr).toMatch(
      /outside the data directory/,
    );
    expect(cli(['restore', full, '--data-dir', tempDir('restore-none')]).stderr).toMatch(/not a Homeport backup/);
  });

  it('refuses a relative folder, which would land under the working directory (CLI and the Server view)', async () => {
    const dataDir = tempDir('backup-relative');
    const hp = await start(dataDir);
    const relative = `homeport-relative-backup-${crypto.randomUUID().slice(0, 8)}`;
    try {
      // The CLI in this process: the folder would be made under this process's working directory.
      for (const target of [relative, `~/${relative}`, `./${relative}`]) {
        const err: string[] = [];
        const code = await runCli(['backup', target, '--data-dir', dataDir], {
          out: () => {},
          err: (l) => err.push(l),
          env: {},
        });
        expect(code, target).toBe(2);
        expect(err.join('\n')).toMatch(/absolute path/);
      }
      expect(fs.existsSync(path.resolve(relative))).toBe(false);

      const api = (init?: RequestInit) =>
        fetch(`${hp.httpUrl}/api/homeport/v1/backup`, {
          ...init,
          headers: { authorization: `Bearer ${hp.uiToken}`, 'content-type': 'application/json' },
        });
      const refused = await api({ method: 'POST', body: JSON.stringify({ directory: relative }) });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { error: string }).error).toMatch(/absolute path/);
      expect(((await (await api()).json()) as { state: string }).state).toBe('idle');
      expect(fs.existsSync(path.resolve(relative))).toBe(false);

      // An absolute folder is backed up; the job is polled until it ends.
      const target = path.join(tempDir('backup-ui'), 'snapshot');
      expect((await api({ method: 'POST', body: JSON.stringify({ directory: target }) })).status).toBe(202);
      const deadline = Date.now() + 60_000;
      let job = { state: 'running' };
      while (job.state === 'running' && Date.now() < deadline) {
        await new Promise((r) => setImmediate(r));
        job = (await (await api()).json()) as { state: string };
      }
      expect(job.state).toBe('done');
      expect(fs.existsSync(path.join(target, 'homeport-backup.json'))).toBe(true);
    } finally {
      // (What the old code wrote, relative to this process's working directory.)
      fs.rmSync(path.resolve(relative), { recursive: true, force: true });
      fs.rmSync(path.resolve('~', relative), { recursive: true, force: true });
      if (fs.existsSync(path.resolve('~')) && fs.readdirSync(path.resolve('~')).length === 0)
        fs.rmdirSync(path.resolve('~'));
      await hp.close();
    }
  });
});

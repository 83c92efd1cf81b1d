import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestHomeport } from './testing/homeport.ts';

const mode = (p: string) => fs.statSync(p).mode & 0o777;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? [p, ...walk(p)] : [p];
  });
}

describe('data directory permissions', () => {
  it('makes an existing install private at start, and everything written later too', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-perms-'));
    // An install from before the rule: world-readable directory, database and media.
    fs.chmodSync(dataDir, 0o755);
    fs.mkdirSync(path.join(dataDir, 'media', 'old'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'media', 'old', 'photo.png'), 'x', { mode: 0o644 });
    const hp = await startTestHomeport(dataDir);
    try {
      // A media file written while serving.
      await hp.social.context.media.write('media_attachments/files', 'png', Buffer.from('y'));
      expect(mode(dataDir)).toBe(0o700);
      const entries = walk(dataDir);
      expect(entries.some((p) => p.endsWith('social.db'))).toBe(true);
      expect(entries.some((p) => p.endsWith('eventlog.db'))).toBe(true);
      expect(entries.some((p) => p.includes(`${path.sep}tls${path.sep}`))).toBe(true);
      const open = entries
        .filter((p) => (mode(p) & 0o077) !== 0)
        .map((p) => `${path.relative(dataDir, p)} ${mode(p).toString(8)}`);
      expect(open).toEqual([]);
    } finally {
      await hp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

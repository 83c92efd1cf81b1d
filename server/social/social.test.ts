import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, LogRing } from '../logger.ts';
import { openSocial } from './social.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-social-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('openSocial', () => {
  it('opens social.db with checkpoints in a worker thread (none inside a commit) and temporary b-trees in memory', async () => {
    const social = await openSocial({
      dataDir: dir,
      logger: createLogger({ level: 'silent', toConsole: false, ring: new LogRing(10) }),
      domain: 'local.test',
      federation: false,
    });
    const db = social.context.store.db;
    try {
      // The checkpointer itself is tested in server/db; here: the server's connection leaves checkpoints to it.
      expect(Number(db.pragma('wal_autocheckpoint', { simple: true }))).toBe(0);
      expect(Number(db.pragma('temp_store', { simple: true }))).toBe(2); // MEMORY
    } finally {
      await social.close();
    }
  });
});

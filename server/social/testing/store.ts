import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Database, openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations/index.ts';
import { SocialStore } from '../store/index.ts';

/** A social store on a new database in a temporary directory (no server), and its removal. */
export function temporaryStore(name: string): { db: Database; store: SocialStore; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `homeport-${name}-`));
  const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'NORMAL' });
  return {
    db,
    store: new SocialStore(db),
    remove: () => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

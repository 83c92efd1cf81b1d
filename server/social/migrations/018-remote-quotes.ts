import type { Migration } from '../../db/index.ts';

export const migration: Migration = {
  version: 18,
  name: 'quote posts across servers',
  up(db) {
    // FEP-044f: the QuoteRequest a quote was asked with, the QuoteAuthorization stamp that allowed it, and
    // whether it came without the `quote` property (Misskey, Akkoma): such quotes are never approved.
    db.exec(`
        ALTER TABLE quotes ADD COLUMN activity_uri TEXT;
        ALTER TABLE quotes ADD COLUMN approval_uri TEXT;
        ALTER TABLE quotes ADD COLUMN legacy INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX quotes_activity_uri ON quotes (activity_uri) WHERE activity_uri IS NOT NULL;
        CREATE INDEX quotes_approval_uri ON quotes (approval_uri) WHERE approval_uri IS NOT NULL;
      `);
  },
};

import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from '../../app-root.ts';

/*
 * External test fixtures (the rebased ActivityPub corpus, the pinned Mastodon OpenAPI document) stay outside
 * the repository, in `shared/fixtures` beside the clone. Every test reads them through this one place:
 * HOMEPORT_FIXTURES when set, else `<repo>/../shared/fixtures`, so a clone in any directory works.
 */
export const FIXTURES_DIR = process.env.HOMEPORT_FIXTURES ?? path.join(APP_ROOT, '..', 'shared', 'fixtures');

/** Path of a fixture folder or file; fails with where it looked when the fixtures are not there. */
export function fixturePath(...parts: string[]): string {
  const file = path.join(FIXTURES_DIR, ...parts);
  if (!fs.existsSync(file))
    throw new Error(
      `test fixture ${file} is missing: put shared/fixtures beside the repository or set HOMEPORT_FIXTURES`,
    );
  return file;
}

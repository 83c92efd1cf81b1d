import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { socialMigrations } from './index.ts';

/*
 * The social schema's history is fixed once merged: a database upgraded by version N must equal one that
 * upgrades later, so a merged migration is never edited (a change goes into a new version), and versions are
 * 1, 2, 3, … without gaps or doubles.
 *
 * To add a migration: create `NNN-what-it-does.ts` with the next number (export `migration` with that
 * version), list it last in index.ts, and add its line to merged.sha256 (from this folder:
 * `sha256sum NNN-what-it-does.ts >> merged.sha256`). Until it is merged you may edit it and its line; once
 * merged, neither. Two branches that took the same number: the later one renumbers its own before merging.
 */

const dir = import.meta.dirname;
const HASHES = path.join(dir, 'merged.sha256');
const entries = fs
  .readdirSync(dir)
  .filter((name) => /^\d{3}-/.test(name))
  .sort();

/** Every file making up the migrations, relative to this folder (a folder of one version counts file by file). */
function migrationFiles(): string[] {
  return entries.flatMap((name) =>
    fs.statSync(path.join(dir, name)).isDirectory()
      ? fs
          .readdirSync(path.join(dir, name))
          .sort()
          .map((file) => `${name}/${file}`)
      : [name],
  );
}

const sha256 = (file: string) =>
  crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(dir, file), 'utf8').replaceAll('\r\n', '\n'))
    .digest('hex');

describe('social.db migrations', () => {
  it('are numbered 1, 2, 3 … in their files, their versions and index.ts alike', async () => {
    expect(entries.map((name) => Number(name.slice(0, 3)))).toEqual(entries.map((_, i) => i + 1));
    expect(socialMigrations.map((m) => m.version)).toEqual(socialMigrations.map((_, i) => i + 1));
    expect(socialMigrations).toHaveLength(entries.length);
    for (const [i, name] of entries.entries()) {
      const file = fs.statSync(path.join(dir, name)).isDirectory() ? `${name}/index.ts` : name;
      const { migration } = (await import(/* @vite-ignore */ `./${file}`)) as { migration: unknown };
      expect(migration, `${file} is not listed as version ${i + 1} in index.ts`).toBe(socialMigrations[i]);
    }
  });

  it('are never edited once merged (merged.sha256 holds the hash of every file)', () => {
    const listed = new Map(
      fs
        .readFileSync(HASHES, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const [hash, file] = line.split(/\s+\*?/);
          return [file, hash] as const;
        }),
    );
    for (const file of migrationFiles()) {
      const hash = sha256(file);
      expect(
        listed.get(file),
        listed.has(file)
          ? `${file} changed after it was merged: restore it and put the change in a new migration`
          : `${file} is not in merged.sha256: add the line "${hash}  ${file}" (see the comment atop this test)`,
      ).toBe(hash);
    }
    expect(
      [...listed.keys()].filter((file) => !fs.existsSync(path.join(dir, file))),
      'listed but gone',
    ).toEqual([]);
  });
});

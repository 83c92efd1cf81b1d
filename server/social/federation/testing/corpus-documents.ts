import fs from 'node:fs';
import path from 'node:path';
import { fixturePath } from '../../testing/fixtures.ts';

/** Every JSON object document of the rebased ActivityPub corpus (what other servers really send), by file name. */
export function corpusDocuments(): { name: string; json: Record<string, any> }[] {
  const root = fixturePath('activitypub-rebased');
  const out: { name: string; json: Record<string, any> }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.json')) {
        let json: unknown;
        try {
          json = JSON.parse(fs.readFileSync(file, 'utf8'));
        } catch {
          continue;
        }
        if (typeof json === 'object' && json !== null && !Array.isArray(json))
          out.push({ name: path.relative(root, file), json: json as Record<string, any> });
      }
    }
  };
  walk(root);
  return out;
}

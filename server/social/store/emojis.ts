import { int, str, type StoreCore } from './store.ts';

export interface CustomEmojiRow {
  id: string;
  shortcode: string;
  imagePath: string;
  staticPath: string;
  category: string | null;
  visibleInPicker: boolean;
}

function toEmoji(r: Record<string, unknown>): CustomEmojiRow {
  const [image, still] = String(r.image_path).split('|');
  return { id: str(r.id), shortcode: String(r.shortcode), imagePath: image, staticPath: still ?? image, category: (r.category as string | null) ?? null, visibleInPicker: int(r.visible_in_picker) === 1 };
}

/** The server's own custom emojis (remote ones arrive with federation), added by the owner. */
export class EmojiRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Enabled local emojis, by category then shortcode. */
  local(): CustomEmojiRow[] {
    const rows = this.core.sql('SELECT * FROM custom_emojis WHERE domain IS NULL AND disabled = 0 ORDER BY category NULLS FIRST, shortcode').all() as Record<string, unknown>[];
    return rows.map(toEmoji);
  }

  byShortcode(shortcode: string): CustomEmojiRow | null {
    const r = this.core.sql('SELECT * FROM custom_emojis WHERE domain IS NULL AND shortcode = ?').get(shortcode) as Record<string, unknown> | undefined;
    return r ? toEmoji(r) : null;
  }

  /** Adds or replaces a local emoji (image and static image: the still version of an animated one). */
  put(input: { shortcode: string; imagePath: string; staticPath: string; category: string | null; visibleInPicker: boolean }): void {
    const now = this.core.now();
    const paths = input.staticPath === input.imagePath ? input.imagePath : `${input.imagePath}|${input.staticPath}`;
    this.core
      .sql(
        `INSERT INTO custom_emojis (id, shortcode, domain, image_path, category, visible_in_picker, created_at, updated_at) VALUES (@id, @shortcode, NULL, @paths, @category, @picker, @now, @now)
         ON CONFLICT (shortcode, coalesce(domain, '')) DO UPDATE SET image_path = excluded.image_path, category = excluded.category, visible_in_picker = excluded.visible_in_picker, disabled = 0, updated_at = excluded.updated_at`,
      )
      .run({ id: this.core.ids.next(), shortcode: input.shortcode, paths, category: input.category, picker: input.visibleInPicker ? 1 : 0, now });
  }

  remove(shortcode: string): CustomEmojiRow | null {
    const existing = this.byShortcode(shortcode);
    if (existing) this.core.sql('DELETE FROM custom_emojis WHERE id = ?').run(existing.id);
    return existing;
  }
}

import { int, str, type StoreCore } from './store.ts';

export interface CustomEmojiRow {
  id: string;
  shortcode: string;
  /** Local emojis: the image in media storage (and its still version). */
  imagePath: string;
  staticPath: string;
  /** Remote emojis: the image at its server, and where it was seen (the author's domain). */
  remoteUrl: string | null;
  domain: string | null;
  category: string | null;
  visibleInPicker: boolean;
}

function toEmoji(r: Record<string, unknown>): CustomEmojiRow {
  const [image, still] = String(r.image_path ?? '').split('|');
  return {
    id: str(r.id),
    shortcode: String(r.shortcode),
    imagePath: image,
    staticPath: still ?? image,
    remoteUrl: (r.image_remote_url as string | null) ?? null,
    domain: (r.domain as string | null) ?? null,
    category: (r.category as string | null) ?? null,
    visibleInPicker: int(r.visible_in_picker) === 1,
  };
}

/** `:shortcode:` as Mastodon finds them in text (letters, digits and underscores, two or more). */
const SHORTCODE = /:([a-zA-Z0-9_]{2,}):/g;

export function shortcodesIn(...texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(SHORTCODE)) found.add(m[1]);
  return [...found];
}

/** The server's own custom emojis (remote ones arrive with federation), added by the owner. */
export class EmojiRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Enabled local emojis, by category then shortcode. */
  local(): CustomEmojiRow[] {
    const rows = this.core
      .sql('SELECT * FROM custom_emojis WHERE domain IS NULL AND disabled = 0 ORDER BY category NULLS FIRST, shortcode')
      .all() as Record<string, unknown>[];
    return rows.map(toEmoji);
  }

  /** Enabled emojis of one origin (null: this server) among `shortcodes`. */
  forShortcodes(domain: string | null, shortcodes: readonly string[]): CustomEmojiRow[] {
    if (shortcodes.length === 0) return [];
    const rows = this.core
      .sql(
        "SELECT * FROM custom_emojis WHERE coalesce(domain, '') = ? AND disabled = 0 AND shortcode IN (SELECT value FROM json_each(?))",
      )
      .all(domain ?? '', JSON.stringify(shortcodes)) as Record<string, unknown>[];
    return rows.map(toEmoji);
  }

  /** Remembers an emoji another server uses (an Emoji tag on a post or profile), by shortcode and domain. */
  putRemote(input: { shortcode: string; domain: string; uri: string | null; url: string }): void {
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO custom_emojis (id, shortcode, domain, uri, image_remote_url, visible_in_picker, created_at, updated_at) VALUES (@id, @shortcode, @domain, @uri, @url, 0, @now, @now)
         ON CONFLICT (shortcode, coalesce(domain, '')) DO UPDATE SET uri = excluded.uri, image_remote_url = excluded.image_remote_url, updated_at = excluded.updated_at
         WHERE custom_emojis.image_remote_url IS NOT excluded.image_remote_url`,
      )
      .run({
        id: this.core.ids.next(),
        shortcode: input.shortcode,
        domain: input.domain,
        uri: input.uri,
        url: input.url,
        now,
      });
  }

  byShortcode(shortcode: string): CustomEmojiRow | null {
    const r = this.core.sql('SELECT * FROM custom_emojis WHERE domain IS NULL AND shortcode = ?').get(shortcode) as
      | Record<string, unknown>
      | undefined;
    return r ? toEmoji(r) : null;
  }

  /** Adds or replaces a local emoji (image and static image: the still version of an animated one). */
  put(input: {
    shortcode: string;
    imagePath: string;
    staticPath: string;
    category: string | null;
    visibleInPicker: boolean;
  }): void {
    const now = this.core.now();
    const paths = input.staticPath === input.imagePath ? input.imagePath : `${input.imagePath}|${input.staticPath}`;
    this.core
      .sql(
        `INSERT INTO custom_emojis (id, shortcode, domain, image_path, category, visible_in_picker, created_at, updated_at) VALUES (@id, @shortcode, NULL, @paths, @category, @picker, @now, @now)
         ON CONFLICT (shortcode, coalesce(domain, '')) DO UPDATE SET image_path = excluded.image_path, category = excluded.category, visible_in_picker = excluded.visible_in_picker, disabled = 0, updated_at = excluded.updated_at`,
      )
      .run({
        id: this.core.ids.next(),
        shortcode: input.shortcode,
        paths,
        category: input.category,
        picker: input.visibleInPicker ? 1 : 0,
        now,
      });
  }

  remove(shortcode: string): CustomEmojiRow | null {
    const existing = this.byShortcode(shortcode);
    if (existing) this.core.sql('DELETE FROM custom_emojis WHERE id = ?').run(existing.id);
    return existing;
  }
}

import { loadSharp } from '../media/index.ts';
import type { CustomEmojiRow, SocialStore } from '../store/index.ts';

/** What emojis need of media storage: files written under a folder (their relative paths returned), and removed. */
interface EmojiFiles {
  write(folder: string, extension: string, data: Buffer): Promise<string>;
  remove(relative: string): Promise<void>;
}

/** The server's own custom emojis: their images are kept in media storage, a still PNG beside an animated one. */
export class CustomEmojiService {
  private readonly store: SocialStore;
  private readonly media: EmojiFiles;
  constructor(store: SocialStore, media: EmojiFiles) {
    this.store = store;
    this.media = media;
  }

  /**
   * Adds an emoji, or replaces the one of that shortcode (whose files then go), from an image already checked to be
   * PNG, GIF or WebP (`format`) and small enough.
   */
  async put(
    input: { shortcode: string; category: string | null; visibleInPicker: boolean },
    image: { data: Buffer; format: string; animated: boolean },
  ): Promise<CustomEmojiRow> {
    const imagePath = await this.media.write('custom_emojis', image.format, image.data);
    const staticPath =
      image.animated || image.format !== 'png'
        ? await this.media.write('custom_emojis', 'png', await (await loadSharp())(image.data).png().toBuffer())
        : imagePath;
    const previous = this.store.emojis.byShortcode(input.shortcode);
    this.store.emojis.put({ ...input, imagePath, staticPath });
    if (previous) await this.removeFiles(previous);
    return this.store.emojis.byShortcode(input.shortcode)!;
  }

  /** Removes an emoji and its files; null when there is none of that shortcode. */
  async remove(shortcode: string): Promise<CustomEmojiRow | null> {
    const removed = this.store.emojis.remove(shortcode);
    if (removed) await this.removeFiles(removed);
    return removed;
  }

  private async removeFiles(emoji: CustomEmojiRow): Promise<void> {
    await this.media.remove(emoji.imagePath);
    if (emoji.staticPath !== emoji.imagePath) await this.media.remove(emoji.staticPath);
  }
}

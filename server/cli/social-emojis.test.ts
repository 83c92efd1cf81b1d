import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Homeport } from '../index.ts';
import { startCliTestServer, type CliTestServer } from './testing/cli-server.ts';

/* Custom emojis added and removed with `homeport emojis …` while the server runs, served by the API. */

let server: CliTestServer;
let hp: Homeport;
let dir: string;

beforeAll(async () => {
  server = await startCliTestServer('emoji-cli');
  ({ hp, dir } = server);
});

afterAll(async () => {
  await server?.close();
});

const cli = (...args: string[]) => server.cli(...args);

const emojis = async () => {
  const res = await fetch(`${hp.httpUrl}/api/v1/custom_emojis`);
  expect(res.headers.get('cache-control')).toContain('public');
  return (await res.json()) as {
    shortcode: string;
    url: string;
    static_url: string;
    visible_in_picker: boolean;
    category: string | null;
  }[];
};

describe('homeport emojis', () => {
  it('adds PNG and animated GIF emojis with categories, serves their images, and removes them', async () => {
    const png = path.join(dir, 'blob.png');
    await sharp({ create: { width: 32, height: 32, channels: 4, background: '#ff8800' } })
      .png()
      .toFile(png);
    const gif = path.join(dir, 'party.gif');
    const frame = (color: string) =>
      sharp({ create: { width: 16, height: 16, channels: 3, background: color } })
        .raw()
        .toBuffer();
    const frames = Buffer.concat([await frame('#ff0000'), await frame('#00ff00')]);
    await sharp(frames, { raw: { width: 16, height: 32, channels: 3, pageHeight: 16 } })
      .gif()
      .toFile(gif);

    expect((await cli('emojis', 'add', 'blobfox', png, '--category', 'Blobs')).code).toBe(0);
    expect((await cli('emojis', 'add', 'party', gif, '--hidden')).code).toBe(0);
    const listed = await emojis();
    expect(listed.map((e) => [e.shortcode, e.category, e.visible_in_picker])).toEqual([
      ['party', null, false],
      ['blobfox', 'Blobs', true],
    ]);
    const party = listed[0];
    expect(party.url).toMatch(/\.gif$/);
    expect(party.static_url).toMatch(/\.png$/);
    const still = await fetch(party.static_url);
    expect(still.status).toBe(200);
    expect((await sharp(Buffer.from(await still.arrayBuffer())).metadata()).format).toBe('png');
    expect((await cli('emojis', 'list')).out).toEqual([':party:\t\t(hidden from pickers)', ':blobfox:\tBlobs']);

    const refused = await cli('emojis', 'add', 'x', png);
    expect(refused.code).not.toBe(0);
    expect(refused.err.join('\n')).toMatch(/2 to 30/);
    fs.writeFileSync(path.join(dir, 'big.png'), Buffer.alloc(300 * 1024));
    expect((await cli('emojis', 'add', 'big', path.join(dir, 'big.png'))).err.join('\n')).toMatch(/256 KB/);
    fs.writeFileSync(path.join(dir, 'text.png'), 'not an image');
    expect((await cli('emojis', 'add', 'text', path.join(dir, 'text.png'))).err.join('\n')).toMatch(/PNG, GIF or WebP/);

    expect((await cli('emojis', 'remove', ':party:')).code).toBe(0);
    expect((await emojis()).map((e) => e.shortcode)).toEqual(['blobfox']);
    expect((await fetch(party.url)).status).toBe(404);
  });
});

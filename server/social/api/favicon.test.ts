import icoEndec from 'ico-endec';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer } from '../testing/harness.ts';

/* The favicon browsers and clients ask every server for: an ICO of Homeport's icon at the usual sizes. */

let server: SocialTestServer;
beforeAll(async () => {
  server = await startSocialTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('/favicon.ico', () => {
  it('is an ICO holding the icon at 16, 32 and 48 pixels, cacheable and open to any origin', async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(res.headers.get('cache-control')).toMatch(/^public/);
    const icons = icoEndec.decode(Buffer.from(await res.arrayBuffer()));
    expect(icons.map((i) => [i.width, i.height, i.imageType])).toEqual([
      [16, 16, 'png'],
      [32, 32, 'png'],
      [48, 48, 'png'],
    ]);
    for (const icon of icons) {
      const meta = await sharp(icon.imageData).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', icon.width, icon.height]);
    }
    expect((await fetch(`${server.url}/favicon.ico`, { method: 'HEAD' })).status).toBe(200);
  });
});

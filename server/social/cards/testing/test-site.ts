import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { SocialTestServer } from '../../testing/harness.ts';

/*
 * A small web site on loopback for the preview card tests: pages (two of them articles) with OpenGraph tags and an image, a page with
 * only a <title>, one with nothing, a redirect, a page far larger than the server reads (plain, and gzipped
 * to a few kilobytes), one that never ends, and a non-HTML answer; hostile ones: a page of a million nested
 * elements, pages whose image is a pixel bomb or an SVG. It counts the requests each path gets and whether
 * the huge page was read to its end.
 */

export interface TestSite {
  base: string;
  /** Requests per path. */
  hits: Map<string, number>;
  /** Whether the huge page was sent to its end (a reader that stops early closes the connection before). */
  hugeFinished: boolean | null;
  /** The card image as served (its size before the server scales it). */
  image: { width: number; height: number };
  total(): number;
  close(): Promise<void>;
}

/** Posts `text` (with `extra` status params) and returns the status as the API shows it once its card was looked for. */
export async function postShowingCard(
  server: SocialTestServer,
  token: string,
  text: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; card: any }> {
  const created = await server.call(token, 'POST', '/api/v1/statuses', { status: text, ...extra });
  expect(created.status).toBe(200);
  await server.social.previewCards.idle();
  return (await server.call(token, 'GET', `/api/v1/statuses/${created.body.id}`)).body;
}

export const HUGE_PAGE_BYTES = 4 * 1024 * 1024;
/** Elements the deep page nests (5 MB of `<div>`, of which the server reads its first megabyte). */
export const DEEP_PAGE_ELEMENTS = 1_000_000;
/** What the gzipped page inflates to: far more than the server may hold. */
const BOMB_BYTES = 64 * 1024 * 1024;

/** A PNG that says it is 40,000 × 40,000 pixels (1.6 gigapixels) in a few dozen bytes: decoding it would take gigabytes. */
function pixelBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(40_000, 0);
  header.writeUInt32BE(40_000, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = zlib.deflateSync(Buffer.alloc(64 * 1024));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const SVG_IMAGE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><rect width="1200" height="630" fill="#3a7bd5"/></svg>';

function page(head: string, body = '<p>Hello</p>'): string {
  return `<!doctype html><html lang="en-GB"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

export async function startTestSite(): Promise<TestSite> {
  const image = { width: 1200, height: 630 };
  const png = await sharp({ create: { width: image.width, height: image.height, channels: 3, background: '#3a7bd5' } })
    .composite([
      {
        input: await sharp({ create: { width: 400, height: 300, channels: 3, background: '#f5c542' } })
          .png()
          .toBuffer(),
        left: 100,
        top: 100,
      },
    ])
    .png()
    .toBuffer();
  const bomb = zlib.gzipSync(
    Buffer.concat([Buffer.from('<html><head>'), Buffer.alloc(BOMB_BYTES, ' '), Buffer.from('<title>Bomb</title>')]),
    { level: 9 },
  );
  const site: TestSite = {
    base: '',
    hits: new Map(),
    hugeFinished: null,
    image,
    total: () => [...site.hits.values()].reduce((a, b) => a + b, 0),
    close: async () => {},
  };
  const pages: Record<string, () => string> = {
    '/article': () =>
      page(
        `<title>Ignored title</title>
         <meta property="og:title" content="Ducks &amp; geese of the north">
         <meta property="og:description" content="A field guide to waterfowl.">
         <meta property="og:site_name" content="Bird Weekly">
         <meta property="og:type" content="article">
         <meta property="og:image" content="/images/ducks.png">
         <meta property="og:image:alt" content="Two ducks on a pond">
         <meta property="og:locale" content="en_US">
         <meta name="author" content="Mallory Mallard">
         <meta property="article:published_time" content="2025-03-04T05:06:07Z">
         <link rel="canonical" href="${site.base}/article">`,
      ),
    // A second article (no canonical link: its card is stored under the address fetched).
    '/story': () =>
      page(
        `<title>Otters return to the river</title>
         <meta property="og:description" content="After forty years, the otters are back.">
         <meta property="og:site_name" content="River News">
         <meta property="og:type" content="article">
         <meta property="og:image" content="/images/ducks.png">`,
      ),
    '/other': () =>
      page(
        `<meta property="og:title" content="Another page"><meta name="description" content="Plain description meta.">`,
      ),
    '/title-only': () => page('<title>\n  Only a title here  \n</title>'),
    '/bare': () => page('', '<p>No metadata at all</p>'),
    '/pixel-bomb': () =>
      page('<meta property="og:title" content="A pixel bomb"><meta property="og:image" content="/images/bomb.png">'),
    '/svg-card': () =>
      page('<meta property="og:title" content="An SVG card"><meta property="og:image" content="/images/card.svg">'),
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    site.hits.set(path, (site.hits.get(path) ?? 0) + 1);
    if (pages[path]) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[path]());
    if (path === '/images/ducks.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (path === '/images/bomb.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(pixelBomb());
    if (path === '/images/card.svg') return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG_IMAGE);
    if (path === '/deep') {
      // Its head is ordinary; its body opens a million elements and never closes one.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(
        '<!doctype html><html><head><title>Deep</title><meta property="og:title" content="Deep nesting"></head><body>',
      );
      const piece = '<div>'.repeat(10_000);
      let sent = 0;
      const more = (): void => {
        while (sent < DEEP_PAGE_ELEMENTS) {
          sent += 10_000;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    if (path === '/short') return res.writeHead(302, { location: '/article' }).end();
    if (path === '/bomb')
      return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(bomb);
    // Sends its title, then never finishes: the server's deadline ends it.
    if (path === '/endless')
      return void res.writeHead(200, { 'content-type': 'text/html' }).write('<html><head><title>Endless</title>');
    if (path === '/data.json')
      return res.writeHead(200, { 'content-type': 'application/json' }).end('{"title":"not a page"}');
    if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' });
      site.hugeFinished = false;
      res.on('finish', () => (site.hugeFinished = true));
      const padding = `<!-- ${'x'.repeat(64 * 1024 - 9)} -->`;
      let sent = 0;
      const more = (): void => {
        while (sent < HUGE_PAGE_BYTES) {
          sent += padding.length;
          if (!res.write(padding)) return void res.once('drain', more);
        }
        res.end('<title>Found too late</title>');
      };
      res.write('<!doctype html><html><head>');
      return more();
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

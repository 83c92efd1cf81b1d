// /favicon.ico: browsers and clients (Phanpy's account switcher, link previews) ask every server for one.
import type { FastifyInstance } from 'fastify';
import icoEndec from 'ico-endec';
import { appPath } from '../../app-root.ts';
import type { SocialContext } from '../context.ts';
import { auth } from '../http/index.ts';
import { loadSharp } from '../media/index.ts';

/** The sizes browsers pick from (tab, taskbar, shortcut). */
const SIZES = [16, 32, 48];

/** Homeport's icon as an ICO of PNG images, made once from resources/icon.png. */
let favicon: Promise<Buffer> | null = null;
function makeFavicon(): Promise<Buffer> {
  favicon ??= loadSharp()
    .then((sharp) =>
      Promise.all(SIZES.map((size) => sharp(appPath('resources', 'icon.png')).resize(size, size).png().toBuffer())),
    )
    .then((images) => icoEndec.encode(images));
  return favicon;
}

export function faviconRoutes(app: FastifyInstance, _ctx: SocialContext): void {
  app.get('/favicon.ico', { config: { auth: auth.public(), publicCache: true } }, async (_req, reply) =>
    reply.type('image/x-icon').send(await makeFavicon()),
  );
}

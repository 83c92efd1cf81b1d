import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Homeport } from '../index.ts';
import { startTestHomeport } from '../testing/homeport.ts';

/* The Social tab's first run through the UI API, as the renderer calls it: the owner's profile, then its picture. */

let hp: Homeport;
let dataDir: string;
let ui: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-social-setup-'));
  hp = await startTestHomeport(dataDir, { tcpTlsPort: null });
  ui = hp.mintUiToken();
});
afterAll(async () => {
  await hp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const setupUrl = () => `${hp.httpUrl}/api/homeport/v1/social/setup`;
const putAvatar = (body: Uint8Array<ArrayBuffer>, contentType: string, token: string | null = ui) =>
  fetch(`${setupUrl()}/avatar`, {
    method: 'PUT',
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
const picture = async (width: number, height: number) =>
  new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
      .png()
      .toBuffer(),
  );

describe('first run: the owner’s profile and picture', () => {
  it('checks the owner’s token before reading any body', async () => {
    const huge = await fetch(setupUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(20 * 1024 * 1024).fill(0x20),
    });
    expect(huge.status).toBe(401);
    expect((await putAvatar(await picture(10, 10), 'image/png', null)).status).toBe(401);
  });

  it('needs the profile before its picture', async () => {
    const early = await putAvatar(await picture(10, 10), 'image/png');
    expect(early.status).toBe(409);
  });

  it('creates the profile, then takes a picture cropped to 400×400 and shown by the Mastodon API', async () => {
    const created = await fetch(setupUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${ui}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'alice',
        displayName: 'Alice',
        email: 'alice@example.org',
        password: 'alice-long-password',
      }),
    });
    expect(created.status).toBe(201);
    const before = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=alice`)).json()) as {
      avatar: string;
    };
    expect(before.avatar).toMatch(/missing\.png$/);

    const put = await putAvatar(await picture(900, 600), 'image/png');
    expect(put.status).toBe(204);
    const after = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=alice`)).json()) as { avatar: string };
    expect(after.avatar).not.toMatch(/missing\.png$/);
    const served = await fetch(after.avatar);
    expect(served.status).toBe(200);
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([400, 400]);

    // A second picture replaces the first, whose file is gone.
    expect((await putAvatar(await picture(50, 50), 'image/png')).status).toBe(204);
    const replaced = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=alice`)).json()) as {
      avatar: string;
    };
    expect(replaced.avatar).not.toBe(after.avatar);
    expect((await fetch(after.avatar)).status).toBe(404);
  });

  it('refuses what is not a picture with a clear error, and what is too large before storing it', async () => {
    const garbage = await putAvatar(new TextEncoder().encode('not an image at all'), 'image/png');
    expect(garbage.status).toBe(422);
    expect(((await garbage.json()) as { error: string }).error).toMatch(
      /picture was refused: avatar is not a readable image/,
    );
    const json = await putAvatar(new TextEncoder().encode('{}'), 'application/json');
    expect(json.status).toBe(415);
    const huge = await putAvatar(new Uint8Array(9 * 1024 * 1024).fill(1), 'image/png');
    expect(huge.status).toBe(413);
  });

  it('refuses a second profile', async () => {
    const again = await fetch(setupUrl(), {
      method: 'POST',
      headers: { authorization: `Bearer ${ui}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'mallory', email: 'm@example.org', password: 'mallory-long-password' }),
    });
    expect(again.status).toBe(409);
  });
});

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isBlurhashValid } from 'blurhash';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { findFfmpeg } from '../../media/processing.ts';
import { useSocialTestServer } from '../../testing/use-server.ts';
import { blob, mp3WithCover, mp4Stub, pngImage, rotatedJpeg } from '../../testing/media-fixtures.ts';

/* Media attachments: v2 asynchronous and v1 synchronous uploads, processing, updates, bad files. */

const t = useSocialTestServer('alice', 'bob');

async function upload(token: string, path: string, file: Blob, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', file, 'upload');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await t.server.fetch(`${t.server.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function getMedia(token: string, id: string) {
  const res = await t.server.fetch(`${t.server.url}/api/v1/media/${id}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('uploads', () => {
  it('uploads through v2 with masto, which polls until processed; the files are served', async () => {
    const masto = t.server.masto(t.alice.token);
    const media = await masto.v2.media.create({
      file: blob(await pngImage(1600, 1200), 'image/png'),
      description: 'a blue rectangle',
      focus: '0.5,-0.25',
    });
    expect(media.type).toBe('image');
    expect(media.url).toMatch(new RegExp(`^${t.server.url}/system/media_attachments/files/.+\\.png$`));
    expect(media.previewUrl).toMatch(/\/system\/media_attachments\/previews\/.+\.jpg$/);
    expect(media.description).toBe('a blue rectangle');
    expect(media.meta?.original).toMatchObject({ width: 1600, height: 1200, size: '1600x1200', aspect: 1600 / 1200 });
    expect(media.meta?.small).toMatchObject({ width: 554, height: 416 });
    expect(media.meta?.focus).toEqual({ x: 0.5, y: -0.25 });
    expect(isBlurhashValid(media.blurhash!).result).toBe(true);
    const served = await fetch(media.url!);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    const preview = await sharp(Buffer.from(await (await fetch(media.previewUrl!)).arrayBuffer())).metadata();
    expect([preview.width, preview.height]).toEqual([554, 416]);
  });

  it('answers 202 with url null, then 206 while processing and 200 once done (megalodon)', async () => {
    const release = t.server.social.context.mediaService.pauseProcessing();
    const mega = t.server.megalodon(t.alice.token);
    // megalodon's form-data takes a file stream (it reads the file name from the path).
    const file = path.join(t.server.dir, 'upload.png');
    fs.writeFileSync(file, await pngImage(300, 200));
    const accepted = await mega.uploadMedia(fs.createReadStream(file));
    expect(accepted.status).toBe(202);
    expect(accepted.data.url).toBeNull();
    const processing = await getMedia(t.alice.token, accepted.data.id);
    expect(processing.status).toBe(206);
    expect(processing.body.url).toBeNull();
    // Not attachable before it is processed.
    const early = await t.server
      .masto(t.alice.token)
      .v1.statuses.create({ status: 'too early', mediaIds: [accepted.data.id] })
      .catch((e: { statusCode: number }) => e.statusCode);
    expect(early).toBe(422);
    release();
    await t.server.social.mediaIdle();
    const done = await mega.getMedia(accepted.data.id);
    expect(done.status).toBe(200);
    expect(done.data.url).not.toBeNull();
    // Someone else's attachment does not exist for bob.
    expect((await getMedia(t.bob.token, accepted.data.id)).status).toBe(404);
  });

  it('processes synchronously through v1, honouring EXIF orientation and dropping metadata', async () => {
    const media = await t.server
      .masto(t.alice.token)
      .v1.media.create({ file: blob(await rotatedJpeg(400, 200), 'image/jpeg') });
    expect(media.url).not.toBeNull();
    expect(media.meta?.original).toMatchObject({ width: 200, height: 400 });
    const stored = await sharp(Buffer.from(await (await fetch(media.url!)).arrayBuffer())).metadata();
    expect([stored.width, stored.height, stored.orientation ?? 1, stored.exif]).toEqual([200, 400, 1, undefined]);
  });

  it('extracts cover art from audio as the preview', async () => {
    const res = await upload(t.alice.token, '/api/v1/media', blob(await mp3WithCover(), 'audio/mpeg'));
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('audio');
    expect(res.body.url).toMatch(/\.mp3$/);
    expect(res.body.preview_url).toMatch(/\/previews\//);
    expect(res.body.meta.duration).toBeCloseTo(1.04, 1);
    expect(res.body.meta.length).toBe('0:00:01.04');
    expect(isBlurhashValid(res.body.blurhash).result).toBe(true);
    const cover = await sharp(Buffer.from(await (await fetch(res.body.preview_url)).arrayBuffer())).metadata();
    expect([cover.width, cover.height]).toEqual([300, 300]);
  });

  it('stores video with a preview frame made by ffmpeg (CI installs Debian ffmpeg)', async () => {
    const ffmpeg = await findFfmpeg();
    expect(ffmpeg, 'ffmpeg is needed for video previews: apt-get install ffmpeg').not.toBeNull();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-video-'));
    const file = path.join(dir, 'clip.mp4');
    const made = spawnSync(ffmpeg!, [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=320x240:rate=10',
      '-pix_fmt',
      'yuv420p',
      file,
    ]);
    expect(made.status, String(made.stderr)).toBe(0);
    const video = await upload(t.alice.token, '/api/v1/media', blob(fs.readFileSync(file), 'video/mp4'));
    fs.rmSync(dir, { recursive: true, force: true });
    expect(video.status).toBe(200);
    expect(video.body.type).toBe('video');
    expect(video.body.preview_url).toMatch(/\.(png|jpe?g|webp)$/);
    const frame = await sharp(Buffer.from(await (await fetch(video.body.preview_url)).arrayBuffer())).metadata();
    expect([frame.width, frame.height]).toEqual([320, 240]);
    expect(video.body.meta.original).toMatchObject({ width: 320, height: 240 });

    const res = await upload(t.alice.token, '/api/v1/media', blob(mp4Stub(), 'video/mp4'));
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/\.mp4$/);
    // A custom thumbnail becomes the preview.
    const form = new FormData();
    form.append('thumbnail', blob(await pngImage(640, 360), 'image/png'), 'thumb.png');
    const put = await t.server.fetch(`${t.server.url}/api/v1/media/${res.body.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${t.alice.token}` },
      body: form,
    });
    const updated = (await put.json()) as { preview_url: string; blurhash: string };
    expect(updated.preview_url).toMatch(/\/thumbnails\//);
    expect(isBlurhashValid(updated.blurhash).result).toBe(true);
  });

  it('refuses bad files with 422 and a reason', async () => {
    const text = await upload(
      t.alice.token,
      '/api/v2/media',
      blob(Buffer.from('just some text, not media at all'), 'text/plain'),
    );
    expect(text.status).toBe(422);
    expect(text.body.details.file[0].description).toMatch(/unsupported type/);
    const broken = await upload(
      t.alice.token,
      '/api/v2/media',
      blob(Buffer.concat([(await pngImage(10, 10)).subarray(0, 16), Buffer.alloc(100, 7)]), 'image/png'),
    );
    expect(broken.status).toBe(422);
    expect(broken.body.details.file[0].description).toMatch(/not a readable image/);
    const huge = await upload(
      t.alice.token,
      '/api/v1/media',
      blob(Buffer.concat([(await pngImage(10, 10)).subarray(0, 16), Buffer.alloc(17 * 1024 * 1024)]), 'image/png'),
    );
    expect(huge.status).toBe(422);
    expect(huge.body.details.file[0].error).toBe('ERR_TOO_LARGE');
    const empty = await upload(t.alice.token, '/api/v1/media', blob(Buffer.alloc(0), 'image/png'));
    expect(empty.status).toBe(422);
    const badFocus = await upload(t.alice.token, '/api/v1/media', blob(await pngImage(10, 10), 'image/png'), {
      focus: '2,0',
    });
    expect(badFocus.status).toBe(422);
    expect(badFocus.body.details.focus).toBeDefined();
    const longDescription = await upload(t.alice.token, '/api/v1/media', blob(await pngImage(10, 10), 'image/png'), {
      description: 'd'.repeat(1501),
    });
    expect(longDescription.status).toBe(422);
    const noFile = await t.server.fetch(`${t.server.url}/api/v2/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.alice.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(noFile.status).toBe(422);
    expect(((await noFile.json()) as { details: object }).details).toHaveProperty('file');
  });
});

describe('attaching and updating', () => {
  it('updates while unattached, attaches in order, then refuses updates and deletion', async () => {
    const masto = t.server.masto(t.alice.token);
    const first = await masto.v1.media.create({ file: blob(await pngImage(50, 50), 'image/png') });
    const second = await masto.v1.media.create({ file: blob(await pngImage(60, 40), 'image/png') });
    const updated = await masto.v1.media.$select(first.id).update({ description: 'first picture', focus: '-1,1' });
    expect(updated.description).toBe('first picture');
    expect(updated.meta?.focus).toEqual({ x: -1, y: 1 });
    const status = await masto.v1.statuses.create({ status: 'two pictures', mediaIds: [second.id, first.id] });
    expect(status.mediaAttachments.map((m) => m.id)).toEqual([second.id, first.id]);
    const refused = await t.server.fetch(`${t.server.url}/api/v1/media/${first.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${t.alice.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ description: 'too late' }),
    });
    expect(refused.status).toBe(422);
    const del = await t.server.fetch(`${t.server.url}/api/v1/media/${first.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.alice.token}` },
    });
    expect(del.status).toBe(422);
    // Editing the status changes descriptions through media_attributes and can drop an attachment.
    const edited = await masto.v1.statuses.$select(status.id).update({
      status: 'one picture',
      mediaIds: [first.id],
      mediaAttributes: [{ id: first.id, description: 'edited alt text' }],
    });
    expect(edited.mediaAttachments.map((m) => [m.id, m.description])).toEqual([[first.id, 'edited alt text']]);
    // The dropped one is free again and can be deleted.
    const freed = await t.server.fetch(`${t.server.url}/api/v1/media/${second.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.alice.token}` },
    });
    expect(freed.status).toBe(200);
    expect(await freed.json()).toEqual({});
    // Someone else's media cannot be attached.
    const other = await t.server
      .masto(t.bob.token)
      .v1.media.create({ file: blob(await pngImage(10, 10), 'image/png') });
    expect(
      await masto.v1.statuses
        .create({ status: 'stolen', mediaIds: [other.id] })
        .catch((e: { statusCode: number }) => e.statusCode),
    ).toBe(422);
  });

  it('deletes media with the status when asked (delete_media), keeps them for a redraft otherwise', async () => {
    const masto = t.server.masto(t.alice.token);
    const kept = await masto.v1.media.create({ file: blob(await pngImage(20, 20), 'image/png') });
    const status = await masto.v1.statuses.create({ status: 'redraft me', mediaIds: [kept.id] });
    const deleted = await masto.v1.statuses.$select(status.id).remove();
    expect(deleted.mediaAttachments.map((m) => m.id)).toEqual([kept.id]);
    const redraft = await masto.v1.statuses.create({ status: deleted.text!, mediaIds: [kept.id] });
    expect(redraft.mediaAttachments.map((m) => m.id)).toEqual([kept.id]);
    const res = await t.server.fetch(`${t.server.url}/api/v1/statuses/${redraft.id}?delete_media=true`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.alice.token}` },
    });
    expect(res.status).toBe(200);
    expect((await getMedia(t.alice.token, kept.id)).status).toBe(404);
    expect((await fetch(redraft.mediaAttachments[0].url!)).status).toBe(404);
  });
});

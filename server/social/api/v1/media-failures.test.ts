import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../../testing/harness.ts';
import { blob, pngImage } from '../../testing/media-fixtures.ts';

// What happens to uploads that go wrong after the 202, or are interrupted by a stop.
let server: SocialTestServer;
let alice: TestUser;
let dataDir: string;
const now = () => Date.now();

beforeAll(async () => {
  server = await startSocialWithClock(now, { keepData: true });
  dataDir = server.dir;
  alice = await server.createUser('alice');
});
afterAll(async () => {
  await server?.close();
});

async function upload(s: SocialTestServer, path: string, file: Blob) {
  const form = new FormData();
  form.append('file', file, 'upload');
  const res = await s.fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${alice.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A PNG whose header reads well (so the upload is accepted) but whose pixel data is cut off. */
async function truncatedPng(): Promise<Buffer> {
  const whole = await pngImage(400, 300);
  return whole.subarray(0, 200);
}

describe('media processing failures', () => {
  it('reports a background failure on GET (422 with the reason) and refuses to attach it', async () => {
    const accepted = await upload(server, '/api/v2/media', blob(await truncatedPng(), 'image/png'));
    expect(accepted.status).toBe(202);
    await server.social.mediaIdle();
    const res = await server.fetch(`${server.url}/api/v1/media/${accepted.body.id}`, {
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; details: { file: { error: string }[] } };
    expect(body.error).toMatch(/^Validation failed: File /);
    expect(body.details.file[0].error).toBe('ERR_INVALID');
    const post = await server.fetch(`${server.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'with a broken picture', media_ids: [accepted.body.id] }),
    });
    expect(post.status).toBe(422);
  });

  it('refuses a thumbnail that is no image with 422 on thumbnail', async () => {
    const media = await upload(server, '/api/v1/media', blob(await pngImage(40, 30), 'image/png'));
    expect(media.status).toBe(200);
    const form = new FormData();
    form.append('thumbnail', blob(Buffer.from('not an image at all'), 'image/png'), 'thumb.png');
    const res = await server.fetch(`${server.url}/api/v1/media/${media.body.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect(res.status).toBe(422);
    expect(Object.keys(((await res.json()) as { details: object }).details)).toEqual(['thumbnail']);
  });

  it('refuses audio that cannot be read', async () => {
    // An ID3 tag claiming more bytes than the file has: recognised as audio, unreadable as such.
    const noise = Buffer.concat([
      Buffer.from('ID3\u0003\u0000\u0000\u007f\u007f\u007f\u007f', 'latin1'),
      Buffer.alloc(2000, 0x41),
    ]);
    const res = await upload(server, '/api/v1/media', blob(noise, 'audio/mpeg'));
    expect(res.status).toBe(422);
    expect(res.body.details.file).toEqual([{ error: 'ERR_INVALID', description: 'is not a readable audio file' }]);
  });

  it('finishes processing a stop interrupted, after the restart', async () => {
    const release = server.social.context.mediaService.pauseProcessing();
    const accepted = await upload(server, '/api/v2/media', blob(await pngImage(320, 200), 'image/png'));
    expect(accepted.status).toBe(202);
    await server.close(); // stops with the upload still queued
    release();
    server = await startSocialWithClock(now, { dataDir, keepData: true });
    await server.social.mediaIdle();
    const res = await server.fetch(`${server.url}/api/v1/media/${accepted.body.id}`, {
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { meta: { original: { width: number } } }).meta.original.width).toBe(320);
  });
});

import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, signInSocialClient } from './social-session.ts';

/*
 * Attachments in the compose form, against a real `homeport serve`: two pictures of the same name (as phones
 * name them), removing, reordering, pasting, dropping, the sensitive mark, descriptions and focal points,
 * each checked in what the server stored.
 */

let hp: RunningHomeport;
let alice: ReturnType<typeof createSocialUser>;
test.beforeAll(async () => {
  hp = await startHomeportProcess();
  alice = createSocialUser(hp, 'alice');
});
test.afterAll(async () => {
  await hp?.stop();
});

interface StoredStatus {
  sensitive: boolean;
  media_attachments: { id: string; description: string | null; meta: { focus?: { x: number; y: number } } }[];
}

/** The newest post of alice's, as the REST API gives it. */
async function newestPost(): Promise<StoredStatus> {
  const me = (await (
    await fetch(`${hp.httpUrl}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${alice.token}` },
    })
  ).json()) as { id: string };
  const res = await fetch(`${hp.httpUrl}/api/v1/accounts/${me.id}/statuses?limit=1`, {
    headers: { authorization: `Bearer ${alice.token}` },
  });
  return ((await res.json()) as StoredStatus[])[0];
}

/** A small PNG of one colour: different bytes for each colour, as two photos of one name would be. */
const picture = (background: string) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background } })
    .png()
    .toBuffer();

async function waitUploaded(compose: Locator, count: number): Promise<void> {
  const bars = compose.getByRole('list', { name: 'Attachments' }).getByRole('progressbar');
  await expect(bars).toHaveCount(count);
  for (let i = 0; i < count; i++) await expect(bars.nth(i)).toHaveAttribute('value', '100');
  await expect(compose.getByRole('button', { name: 'Post' })).toBeEnabled();
}

/** Fires a paste or drop carrying `files` on `target`, as the browser does for a pasted or dropped picture. */
async function sendFiles(
  page: Page,
  kind: 'paste' | 'drop',
  selector: string,
  files: { name: string; bytes: number[] }[],
) {
  await page.evaluate(
    ({ kind, selector, files }) => {
      const data = new DataTransfer();
      for (const f of files) data.items.add(new File([new Uint8Array(f.bytes)], f.name, { type: 'image/png' }));
      const target = document.querySelector(selector)!;
      if (kind === 'paste') target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true }));
      else {
        target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }
    },
    { kind, selector, files },
  );
}

test('two pictures of the same name both post, in the order chosen, described, focused and marked sensitive', async ({
  page,
}) => {
  await signInSocialClient(page, hp, alice);
  const compose = page.getByRole('form', { name: 'Compose' });
  const files = compose.getByLabel(/Add images, video or audio/);
  const [red, blue, green] = await Promise.all([picture('#c0392b'), picture('#2471a3'), picture('#1e8449')]);

  // Two files both called image.png (phones name every photo so), then a third.
  await files.setInputFiles([
    { name: 'image.png', mimeType: 'image/png', buffer: red },
    { name: 'image.png', mimeType: 'image/png', buffer: blue },
  ]);
  await files.setInputFiles({ name: 'green.png', mimeType: 'image/png', buffer: green });
  await waitUploaded(compose, 3);
  await compose.getByLabel('Description of attachment 1').fill('Red');
  await compose.getByLabel('Description of attachment 2').fill('Blue');
  await compose.getByLabel('Description of attachment 3').fill('Green');

  // Remove the first; move green before blue.
  await compose.getByRole('button', { name: 'Remove attachment 1' }).click();
  await expect(compose.getByLabel('Description of attachment 1')).toHaveValue('Blue');
  await compose.getByRole('button', { name: 'Move attachment 2 earlier' }).click();
  await expect(compose.getByLabel('Description of attachment 1')).toHaveValue('Green');
  await expect(compose.getByLabel('Description of attachment 2')).toHaveValue('Blue');

  // A focal point from the sliders, the sensitive mark.
  const first = compose.getByRole('listitem', { name: /^Attachment 1/ });
  await first.getByLabel('Left to right').fill('0.5');
  await first.getByLabel('Bottom to top').fill('-0.25');
  await compose.getByLabel(/Mark media as sensitive/).check();
  await compose.getByLabel('What’s on your mind?').fill('Colours');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(compose.getByRole('list', { name: 'Attachments' })).toHaveCount(0);

  const posted = await newestPost();
  expect(posted.media_attachments.map((m) => m.description)).toEqual(['Green', 'Blue']);
  expect(new Set(posted.media_attachments.map((m) => m.id)).size).toBe(2);
  expect(posted.media_attachments[0].meta.focus).toEqual({ x: 0.5, y: -0.25 });
  expect(posted.sensitive).toBe(true);
});

test('pictures pasted into the text and dropped on the form are attached', async ({ page }) => {
  await signInSocialClient(page, hp, alice);
  const compose = page.getByRole('form', { name: 'Compose' });
  const bytes = [...(await picture('#884ea0'))];
  await sendFiles(page, 'paste', '#compose-text', [{ name: 'image.png', bytes }]);
  await sendFiles(page, 'drop', 'form[aria-label="Compose"]', [{ name: 'image.png', bytes }]);
  await waitUploaded(compose, 2);
  await compose.getByLabel('What’s on your mind?').fill('Pasted and dropped');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(compose.getByRole('list', { name: 'Attachments' })).toHaveCount(0);
  const posted = await newestPost();
  expect(posted.media_attachments).toHaveLength(2);
  expect(posted.sensitive).toBe(false);
});

test('the viewer shows each picture whole, zooms to full size, and goes between pictures with the arrow keys', async ({
  page,
}) => {
  // Two pictures larger than a thumbnail, of different shapes, posted through the API with descriptions.
  const ids: string[] = [];
  for (const [width, height, description] of [
    [1200, 800, 'A wide harbour'],
    [600, 900, 'A tall mast'],
  ] as const) {
    const form = new FormData();
    const bytes = await sharp({ create: { width, height, channels: 3, background: '#2a6f97' } })
      .png()
      .toBuffer();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'image.png');
    form.append('description', description);
    const res = await fetch(`${hp.httpUrl}/api/v2/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: form,
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  await expect
    .poll(async () => {
      const states = await Promise.all(
        ids.map((id) =>
          fetch(`${hp.httpUrl}/api/v1/media/${id}`, { headers: { authorization: `Bearer ${alice.token}` } }),
        ),
      );
      return states.every((r) => r.status === 200);
    })
    .toBe(true);
  const res = await fetch(`${hp.httpUrl}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'Two shapes', media_ids: ids }),
  });
  expect(res.status).toBe(200);

  await page.setViewportSize({ width: 1440, height: 900 });
  await signInSocialClient(page, hp, alice);
  const post = page.getByRole('article').filter({ hasText: 'Two shapes' });
  await post.getByRole('button', { name: 'View image: A wide harbour' }).click();
  const viewer = page.getByRole('dialog', { name: 'Image 1 of 2' });
  await expect(viewer).toContainText('A wide harbour');
  const image = page.getByRole('dialog').getByTestId('viewer-image');
  // The whole picture: the original file, uncropped (its shown shape is its own), larger than a thumbnail.
  const shape = () =>
    image.evaluate((img: HTMLImageElement) => ({
      natural: [img.naturalWidth, img.naturalHeight],
      shown: [img.clientWidth, img.clientHeight],
    }));
  await expect.poll(async () => (await shape()).natural).toEqual([1200, 800]);
  const fitted = await shape();
  expect(fitted.shown[0]).toBeGreaterThan(240);
  expect(Math.abs(fitted.shown[0] / fitted.shown[1] - 1.5)).toBeLessThan(0.02);
  await page.screenshot({ path: 'test-results/screenshots/social-media-viewer.png' });
  // Full size, then back to fitted.
  await viewer.getByRole('button', { name: 'Full size' }).click();
  await expect.poll(async () => (await shape()).shown).toEqual([1200, 800]);
  await viewer.getByRole('button', { name: 'Fit to window' }).click();
  // The arrow keys go between the pictures, each with its description.
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('dialog', { name: 'Image 2 of 2' })).toContainText('A tall mast');
  await expect.poll(async () => (await shape()).natural).toEqual([600, 900]);
  // The tall one whole too: shown in its own shape (2:3), not cropped to the thumbnail's frame.
  await expect
    .poll(async () => {
      const { shown } = await shape();
      return Math.round((shown[0] / shown[1]) * 100) / 100;
    })
    .toBe(0.67);
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('dialog', { name: 'Image 1 of 2' })).toContainText('A wide harbour');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

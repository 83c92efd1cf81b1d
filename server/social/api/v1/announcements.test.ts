import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ValidationFailure } from '../../errors.ts';
import { useSocialTestServer } from '../../testing/use-server.ts';

/*
 * Announcements through masto.js, ws and the CLI: published by the owner, read, reacted to and dismissed by
 * users, and told live on the user stream (announcement, announcement.reaction, announcement.delete).
 */

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'homeport.js');

const t = useSocialTestServer('alice', 'bob');

describe('announcements', () => {
  it('are published, read, reacted to, dismissed and withdrawn, each live on the user stream', async () => {
    const ws = new WebSocket(`${t.server.url.replace('http', 'ws')}/api/v1/streaming?stream=user`, [t.bob.token]);
    const frames: { event: string; payload?: string }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.on('open', r));
    await vi.waitFor(() => expect(t.server.social.streaming.stats().subscriptions).toBeGreaterThanOrEqual(1), {
      timeout: 10_000,
    });
    /** Waits until the socket has received an `event` frame. */
    const framed = (event: string) =>
      vi.waitFor(() => expect(frames.map((f) => f.event)).toContain(event), { timeout: 10_000 });

    const id = t.server.social.admin.publishAnnouncement({
      text: 'Maintenance tonight #homeport',
      startsAt: Date.parse('2030-01-01T20:00:00Z'),
      endsAt: Date.parse('2030-01-01T22:00:00Z'),
    });
    await framed('announcement');
    const published = frames
      .filter((f) => f.event === 'announcement')
      .map((f) => JSON.parse(f.payload!) as { id: string; content: string });
    expect(published.map((a) => a.id)).toEqual([id]);
    expect(published[0].content).toContain('Maintenance tonight');

    const [listed] = await t.server.masto(t.alice.token).v1.announcements.list();
    expect(listed).toMatchObject({
      id,
      read: false,
      allDay: false,
      reactions: [],
      startsAt: '2030-01-01T20:00:00.000Z',
    });

    await t.server.masto(t.alice.token).v1.announcements.$select(id).reactions.$select('👍').update();
    await framed('announcement.reaction');
    expect((await t.server.masto(t.alice.token).v1.announcements.list())[0].reactions).toEqual([
      { name: '👍', count: 1, me: true },
    ]);
    expect((await t.server.masto(t.bob.token).v1.announcements.list())[0].reactions).toEqual([
      { name: '👍', count: 1, me: false },
    ]);
    expect(frames.filter((f) => f.event === 'announcement.reaction').map((f) => JSON.parse(f.payload!))).toEqual([
      { name: '👍', count: 1, announcement_id: id },
    ]);
    const bad = await t.server.fetch(
      `${t.server.url}/api/v1/announcements/${id}/reactions/${encodeURIComponent('not an emoji')}`,
      { method: 'PUT', headers: { Authorization: `Bearer ${t.alice.token}` } },
    );
    expect(bad.status).toBe(422);

    await t.server.masto(t.alice.token).v1.announcements.$select(id).dismiss();
    await t.server.masto(t.alice.token).v1.announcements.$select(id).dismiss();
    expect(await t.server.masto(t.alice.token).v1.announcements.list()).toEqual([]);
    expect(
      (
        (await t.server.masto(t.alice.token).v1.announcements.list({ withDismissed: true } as never)) as unknown as {
          read: boolean;
        }[]
      )[0].read,
    ).toBe(true);
    expect((await t.server.masto(t.bob.token).v1.announcements.list()).map((a) => a.id)).toEqual([id]);

    t.server.social.admin.removeAnnouncement(id);
    await framed('announcement.delete');
    expect(frames.filter((f) => f.event === 'announcement.delete').map((f) => f.payload)).toEqual([id]);
    expect(await t.server.masto(t.bob.token).v1.announcements.list()).toEqual([]);
    ws.close();
  });

  it('refuses all_day without a time range, and is published from the command line too', async () => {
    expect(() => t.server.social.admin.publishAnnouncement({ text: 'party', allDay: true })).toThrow(ValidationFailure);
    const { stdout } = await exec(process.execPath, [
      BIN,
      'announcements',
      'add',
      'Hello from the CLI',
      '--data-dir',
      t.server.dir,
    ]);
    expect(stdout).toMatch(/^announcement \d+ published/);
    expect((await t.server.masto(t.bob.token).v1.announcements.list()).map((a) => a.content)).toEqual([
      expect.stringContaining('Hello from the CLI'),
    ]);
  });
});

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';

/*
 * The admin CLI (a process of its own) changing social.db while `serve` runs: its domain events reach the
 * running server at once, through the relayed_events table, with the effects the admin API's have.
 */

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '..', '..', '..', 'bin', 'homeport.js');

let server: SocialTestServer;
let reader: TestUser;
let streaming: string;

beforeAll(async () => {
  server = await startSocialTestServer();
  reader = await server.createUser('reader');
  streaming = (await server.masto(reader.token).v2.instance.fetch()).configuration.urls.streaming;
});

afterAll(async () => {
  await server?.close();
});

const cli = (...args: string[]) => exec(process.execPath, [BIN, ...args, '--data-dir', server.dir]);

/** A user-stream socket of `token`, open; its frames and how it closed. */
async function userStream(token: string) {
  const socket = new WebSocket(`${streaming}/api/v1/streaming?stream=user`, [token]);
  const frames: { event: string; payload?: string }[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    socket.on('open', resolve);
    socket.on('error', reject);
  });
  return { frames, closed, close: () => socket.close() };
}

async function until<T>(probe: () => T | null | undefined | false, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('changes made with the CLI while serve runs', () => {
  it('stream an announcement published from the command line at once', async () => {
    const stream = await userStream(reader.token);
    try {
      const { stdout } = await cli('announcements', 'add', 'Maintenance tonight');
      const id = /^announcement (\d+) published/.exec(stdout)![1];
      const frame = await until(
        () => stream.frames.find((f) => f.event === 'announcement'),
        'the announcement on the user stream',
      );
      expect(JSON.parse(frame.payload!)).toMatchObject({ id, content: expect.stringContaining('Maintenance tonight') });
      await cli('announcements', 'remove', id);
      const removed = await until(
        () => stream.frames.find((f) => f.event === 'announcement.delete'),
        'the removal on the user stream',
      );
      expect(removed.payload).toBe(id);
    } finally {
      stream.close();
    }
    // Delivered ones leave the table.
    await until(() => server.social.context.store.relayedEvents.after(0, 1).length === 0, 'the table to empty');
  });

  it('close the streams of an account suspended from the command line, and announce a deletion to other servers', async () => {
    const target = await server.createUser('leaving');
    const stream = await userStream(target.token);
    await cli('accounts', 'suspend', 'leaving');
    expect(await stream.closed).toBe(1008);
    expect((await server.call(target.token, 'GET', '/api/v1/accounts/verify_credentials')).status).toBe(403);

    await cli('accounts', 'delete', 'leaving');
    // The running server's federation sent the actor's Delete (to every server it knows) and then wiped the key.
    await until(
      () => !server.social.context.store.accounts.deletedAwaitingAnnouncement().includes(target.accountId),
      'the deletion announced by the running server',
    );
  });
});

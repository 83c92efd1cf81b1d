import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePublicUrl } from '../../config.ts';
import { createLogger, LogRing } from '../../logger.ts';
import { openSocial } from '../social.ts';
import { createTestNetwork, eventually } from './testing/test-network.ts';

const net = createTestNetwork();
afterAll(() => net.close());

describe('the public URL', () => {
  it('is the instance identity: once federated it cannot change; a delivery queued before a stop goes out after the restart', async () => {
    const a = await net.add('a.test', { retryDelayMs: 200 });
    const b = await net.add('b.test');
    const alice = await a.createUser('alice');
    const bob = await b.createUser('bob');
    const remoteAlice = await bob.client.v1.accounts.lookup({ acct: 'alice@a.test' });
    await bob.client.v1.accounts.$select(remoteAlice.id).follow();
    await eventually(
      async () => (await bob.client.v1.accounts.relationships.fetch({ id: [remoteAlice.id] }))[0].following,
      'bob follows alice',
    );

    // b is down when alice posts: the delivery fails once and waits in a's queue for its retry.
    b.intercept = (req) => (req.method === 'POST' ? new Response('down', { status: 503 }) : null);
    const post = await alice.client.v1.statuses.create({ status: 'queued across a restart' });
    await eventually(
      () => net.log.some((l) => l.method === 'POST' && l.url.startsWith('https://b.test/') && l.status === 503),
      'first delivery attempt refused',
    );
    await a.close({ keepData: true });

    // A restart under another name is refused with the reason.
    const logger = createLogger({ level: 'silent', toConsole: false, ring: new LogRing(10) });
    await expect(openSocial({ dataDir: a.dir, logger, domain: 'renamed.test', secure: true })).rejects.toThrow(
      'this instance has federated as https://a.test; it cannot become https://renamed.test',
    );

    // Restarted under its name with b back up: the queued delivery goes out.
    b.intercept = null;
    const again = await net.add('a.test', { dataDir: a.dir, retryDelayMs: 200 });
    await eventually(
      async () => (await bob.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'queued post reaches bob after the restart',
    );
    await again.close();
    expect(fs.existsSync(a.dir)).toBe(false);
  });

  it('must be an origin', () => {
    expect(parsePublicUrl('https://social.example.org').origin).toBe('https://social.example.org');
    expect(() => parsePublicUrl('social.example.org')).toThrow('must be like https://');
    expect(() => parsePublicUrl('ftp://social.example.org')).toThrow('must start with https://');
    expect(() => parsePublicUrl('https://example.org/social')).toThrow('without a path');
  });
});

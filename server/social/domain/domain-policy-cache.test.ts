import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSocialWithClock, type SocialTestServer } from '../testing/harness.ts';

/*
 * A remote domain's policy is asked several times per inbound activity: it is kept between writes of what
 * it is made of (domain blocks, domain allows, the federation mode) and read again after each of them, and
 * after another connection's write. Each test below fails with a policy kept regardless.
 */

let server: SocialTestServer;
const policy = (domain: string) => server.social.context.moderation.domainPolicy(domain);

beforeAll(async () => {
  server = await startSocialWithClock(() => Date.now());
});

afterAll(async () => {
  await server?.close();
});

describe('domain policies', () => {
  it('are read once for a burst of activities while posts are written', async () => {
    const store = server.social.context.store;
    expect(policy('burst.test').refused).toBe(false);
    const covering = vi.spyOn(store.moderation, 'domainBlockCovering');
    try {
      for (let i = 0; i < 5; i++) {
        store.transaction(() => store.statuses.newConversation());
        expect(policy('burst.test').refused).toBe(false);
      }
      expect(covering).not.toHaveBeenCalled();
    } finally {
      covering.mockRestore();
    }
  });

  it('follow a domain block as it is made, changed and lifted', async () => {
    const moderation = server.social.context.moderation;
    expect(policy('blocked.test')).toMatchObject({ refused: false, silenced: false });
    const made = moderation.blockDomain({
      domain: 'blocked.test',
      severity: 'suspend',
      rejectMedia: false,
      rejectReports: false,
      privateComment: null,
      publicComment: null,
      obfuscate: false,
    });
    if (!('created' in made)) throw new Error('the block was not made');
    // A subdomain is covered too.
    expect(policy('media.blocked.test').refused).toBe(true);
    moderation.changeDomainBlock(made.created.id, (block) => ({ ...block, severity: 'silence' }));
    expect(policy('media.blocked.test')).toMatchObject({ refused: false, silenced: true });
    moderation.removeDomainBlock(made.created.id);
    expect(policy('media.blocked.test')).toMatchObject({ refused: false, silenced: false });
  });

  it('follow the federation mode and the allowed domains', async () => {
    const { settings } = server.social.context.store;
    expect(policy('allowed.test').refused).toBe(false);
    settings.setOwner('federation_mode', 'limited');
    try {
      expect(policy('allowed.test').refused).toBe(true);
      server.social.context.moderation.allowDomain('allowed.test');
      expect(policy('allowed.test').refused).toBe(false);
    } finally {
      settings.setOwner('federation_mode', 'open');
    }
  });

  it('follow a block written by another connection (the admin CLI)', async () => {
    expect(policy('cli.test').refused).toBe(false);
    // The server's pending writes committed first (the CLI's wait for the lock would hold this thread).
    await server.social.context.store.durable();
    const cli = new Database(path.join(server.dir, 'social.db'));
    try {
      cli
        .prepare(
          "INSERT INTO domain_blocks (id, domain, severity, reject_media, reject_reports, private_comment, public_comment, obfuscate, created_at, updated_at) VALUES (1, 'cli.test', 'suspend', 0, 0, NULL, NULL, 0, 0, 0)",
        )
        .run();
    } finally {
      cli.close();
    }
    expect(policy('cli.test').refused).toBe(true);
  });
});

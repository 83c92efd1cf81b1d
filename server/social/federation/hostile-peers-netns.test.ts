import { describe, expect, it } from 'vitest';
import { runInNamespace } from '../../security/testing/netns.ts';
import type { NetnsReport } from './hostile-peers.netns.ts';

/*
 * Issue 32, findings 1, 2, 4 and 5 with the private-address guard ON, in a network namespace of the test's
 * own (server/security/testing/netns.ts): the hostile server on a public-looking address (hostile.example,
 * 1.2.3.4), and names the DNS server answers first with a public address (5.6.7.8) and then with 127.0.0.1,
 * through search by URL, by handle and an import row. Nothing may reach the service on 127.0.0.1.
 */

const REBIND_NAMES = ['rebind-url.example', 'rebind-handle.example', 'rebind-import.example'];
const MEMORY_HEADROOM = 150 * 1024 * 1024;

const run = (part: 'rebind' | 'hostile') =>
  runInNamespace<NetnsReport>({
    script: new URL('./hostile-peers.netns.ts', import.meta.url),
    hosts: { 'hostile.example': ['1.2.3.4'] },
    dns: Object.fromEntries(REBIND_NAMES.map((name) => [name, [['5.6.7.8'], ['127.0.0.1']]])),
    certificates: ['hostile.example', ...REBIND_NAMES],
    input: { part, rebindNames: REBIND_NAMES },
    timeoutMs: 240_000,
  });

describe('a hostile fediverse server, the private-address guard on', () => {
  it('cannot reach loopback by DNS rebinding (search by URL, by handle, an import row)', async () => {
    const { result, dnsQueries } = await run('rebind');
    // Loopback got nothing: the first answer (public) was used and reached the public site; the lookup of the
    // next request was made and its loopback answer refused.
    expect(result.loopbackRequests).toEqual([]);
    for (const name of REBIND_NAMES) {
      expect(
        result.publicRequests.some((r) => r.startsWith(name)),
        name,
      ).toBe(true);
      expect(dnsQueries.filter((q) => q.name === name && q.type === 'A').length, name).toBeGreaterThan(1);
    }
    expect(result.rebind!.url.status).toBeLessThan(500);
    expect(result.rebind!.handle.status).toBeLessThan(500);
    expect(result.rebind!.importErrors).toHaveLength(1);
    expect(result.exited).toBeNull();
  }, 300_000);

  it('cannot kill the server with bombs, endless bodies, drips or a 50 MB actor', async () => {
    const { result } = await run('hostile');
    for (const [attack, outcome] of Object.entries(result.hostile!)) {
      if (attack.startsWith('inbox')) expect(outcome.status, attack).toBe(401);
      else {
        expect(outcome.status, attack).toBe(422);
        expect(outcome.error, attack).toMatch(/larger than \d+ bytes|did not answer in full within/);
      }
      expect(outcome.rssGrowth, attack).toBeLessThan(MEMORY_HEADROOM);
    }
    expect(result.exited).toBeNull();
  }, 300_000);
});

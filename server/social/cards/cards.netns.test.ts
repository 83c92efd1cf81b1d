import { describe, expect, it } from 'vitest';
import { guardTestNetwork, NAMESPACE_TEST_TIMEOUT_MS, runInNamespace } from '../../security/testing/netns.ts';
import type { CardsNetnsReport } from './cards.netns.ts';

/*
 * Link preview cards with the private-address guard on, as served: in a network namespace of its own, a site
 * on a public-looking address (1.2.3.4, https with a test-CA certificate) gets its card; links and
 * redirects to loopback, private and mapped addresses get none, and listeners there count no connection
 * (cards.netns.ts runs it all).
 */

/** Links whose page is on 1.2.3.4: each gets a card. */
const PUBLIC = [
  'https://site.example/article',
  'http://site.example/article',
  'https://1.2.3.4/article',
  'https://rebind.example/article',
];
/** Links that must get no card, and make no connection to loopback or private addresses. */
const REFUSED = [
  'http://127.0.0.1/a',
  'https://127.0.0.1/a',
  'http://10.1.2.3/a',
  'http://[::ffff:127.0.0.1]/a',
  'http://[::1]/a',
  'http://2130706433/a',
  'http://loopback.example/a',
  'http://private.example/a',
  'http://mapped.example/a',
  'http://localhost/a',
  'https://site.example/to-loopback',
  'https://site.example/to-mapped',
  'https://site.example/to-loopback6',
  'https://site.example/to-private-name',
  'https://site.example/to-localhost',
];

describe('preview cards on a real network, guard on', () => {
  it(
    'fetches a card from a public site, and never connects to loopback, private or mapped addresses',
    async () => {
      const run = await runInNamespace<CardsNetnsReport>({
        script: new URL('./cards.netns.ts', import.meta.url),
        ...guardTestNetwork(['site.example']),
        input: [...PUBLIC, ...REFUSED],
      });
      const { cards, siteHits, victims } = run.result;
      for (const link of PUBLIC) expect(cards[link], link).toEqual({ linked: true, title: 'A public article' });
      // Each link was found in its post (so a missing card means a refused fetch, not an unseen link).
      for (const link of REFUSED) expect(cards[link], link).toEqual({ linked: true, title: null });
      expect(run.dnsQueries.filter((q) => q.name === 'rebind.example' && q.type === 'A')).toHaveLength(1);
      // The redirects were followed to their first hop only: the site answered them, the next hop was refused.
      expect(siteHits.filter((path) => path.startsWith('/to-')).sort()).toEqual([
        '/to-localhost',
        '/to-loopback',
        '/to-loopback6',
        '/to-mapped',
        '/to-private-name',
      ]);
      expect(Object.values(victims)).toEqual([0, 0, 0, 0, 0, 0]);
    },
    NAMESPACE_TEST_TIMEOUT_MS,
  );
});

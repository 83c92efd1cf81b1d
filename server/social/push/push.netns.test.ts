import { describe, expect, it } from 'vitest';
import { guardTestNetwork, NAMESPACE_TEST_TIMEOUT_MS, runInNamespace } from '../../security/testing/netns.ts';
import type { PushNetnsReport } from './push.netns.ts';

/*
 * Web Push with the private-address guard on, as served: in a network namespace of its own, the push
 * service is on a public-looking address (1.2.3.4) with a certificate from a test CA, and listeners on
 * loopback and a private address count any connection that reaches them (push.netns.ts runs it all).
 */
/** Names (accepted when subscribing; judged when pushing). */
const NAMED = [
  'https://push.example/by-name',
  'https://1.2.3.4/by-public-literal',
  'https://rebind.example/rebinding',
  'https://loopback.example/loopback-name',
  'https://private.example/private-name',
  'https://mapped.example/mapped-name',
  'https://localhost/localhost',
];
/** Literal private addresses (refused when subscribing). */
const LITERAL = [
  'https://127.0.0.1/loopback-literal',
  'https://[::1]/loopback6-literal',
  'https://[::ffff:127.0.0.1]/mapped-literal',
  'https://10.1.2.3/private-literal',
];

describe('Web Push on a real network, guard on', () => {
  it(
    'delivers to a public push service, and never connects to loopback, private, mapped or literal addresses',
    async () => {
      const run = await runInNamespace<PushNetnsReport>({
        script: new URL('./push.netns.ts', import.meta.url),
        ...guardTestNetwork(['push.example']),
        input: [...NAMED, ...LITERAL],
      });
      const { subscribed, received, kept, victims } = run.result;

      // Names are accepted when subscribing; literal private addresses are refused there with 422.
      for (const endpoint of NAMED) expect(subscribed[endpoint], endpoint).toBe(200);
      for (const endpoint of LITERAL) expect(subscribed[endpoint], endpoint).toBe(422);

      // Delivered (and decrypted) where the address is public, the rebinding name included: it connected to
      // the address its one lookup checked.
      expect(received.sort()).toEqual(['/by-name follow', '/by-public-literal follow', '/rebinding follow']);
      expect(run.dnsQueries.filter((q) => q.name === 'rebind.example' && q.type === 'A')).toHaveLength(1);
      expect(kept).toEqual({
        'https://push.example/by-name': true,
        'https://1.2.3.4/by-public-literal': true,
        'https://rebind.example/rebinding': true,
        // Refused when sending: the subscription is dropped, as one its push service calls gone.
        'https://loopback.example/loopback-name': false,
        'https://private.example/private-name': false,
        'https://mapped.example/mapped-name': false,
        'https://localhost/localhost': false,
        'https://[::ffff:7f00:1]/stored-literal': false,
      });
      expect(victims).toEqual({ '127.0.0.1': 0, '::1': 0, '10.1.2.3': 0 });
    },
    NAMESPACE_TEST_TIMEOUT_MS,
  );
});

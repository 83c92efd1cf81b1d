import { describe, expect, it } from 'vitest';
import { guardTestNetwork, NAMESPACE_TEST_TIMEOUT_MS, runInNamespace } from '../../security/testing/netns.ts';
import type { SelfCheckNetnsReport } from './self-check.netns.ts';

/*
 * The federation self-check as it runs for a real instance: in a network namespace of its own, Homeport is
 * served as https://social.example on a public-looking address (1.2.3.4, certificate from a test CA), as
 * https://private.example on 10.1.2.3, and as https://rebind.example, whose DNS answer turns to 127.0.0.1
 * (where an impostor answers) after the first question (self-check.netns.ts runs it all).
 */
describe('federation self-check on a real network', () => {
  it(
    'calls a public address reachable, a private one a warning, and checks where it connects',
    async () => {
      const network = guardTestNetwork(['social.example']);
      const run = await runInNamespace<SelfCheckNetnsReport>({
        script: new URL('./self-check.netns.ts', import.meta.url),
        ...network,
        certificates: [...network.certificates!, 'private.example'],
        input: {
          names: ['social.example', 'private.example', 'rebind.example'],
          publicCert: 'social.example',
          privateCert: 'private.example',
        },
      });
      const { reports, impostorHits } = run.result;
      const statuses = (name: string) =>
        Object.fromEntries(reports[name].checks.map((c) => [c.name, `${c.status}: ${c.detail}`]));

      const everythingOk = {
        'public-url': expect.stringMatching(/^ok/),
        reach: expect.stringMatching(/^ok/),
        proxy: 'ok: no proxy in between',
        nodeinfo: expect.stringMatching(/^ok/),
        webfinger: expect.stringMatching(/^ok/),
        actor: expect.stringMatching(/^ok/),
      };
      expect(statuses('social.example')).toEqual({ ...everythingOk, dns: 'ok: social.example → 1.2.3.4' });
      expect(reports['social.example'].ok).toBe(true);

      expect(statuses('private.example')).toEqual({
        ...everythingOk,
        dns: expect.stringMatching(/^warning: private\.example resolves to 10\.1\.2\.3: a private address/),
      });

      // Judged on 1.2.3.4 and connected there: one question, and the impostor on loopback never asked.
      expect(statuses('rebind.example')).toEqual({ ...everythingOk, dns: 'ok: rebind.example → 1.2.3.4' });
      expect(run.dnsQueries.filter((q) => q.name === 'rebind.example' && q.type === 'A')).toHaveLength(1);
      expect(impostorHits).toBe(0);
    },
    NAMESPACE_TEST_TIMEOUT_MS,
  );
});

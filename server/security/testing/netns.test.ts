import { describe, expect, it } from 'vitest';
import { runInNamespace } from './netns.ts';

describe('runInNamespace', () => {
  it('serves a public-looking address with a test-CA certificate, the generated hosts file and successive DNS answers', async () => {
    const run = await runInNamespace<{
      body: string;
      body6: string;
      hosts: string[];
      rebind: string[];
      unknown: string;
    }>({
      script: new URL('./netns-selftest.netns.ts', import.meta.url),
      hosts: { 'site.example': ['1.2.3.4'] },
      dns: { 'rebind.example': [['5.6.7.8'], ['127.0.0.1']], 'site6.example': [['2606:4700::1234']] },
      certificates: ['site.example', 'site6.example'],
    });
    expect(run.result.body).toBe('hello from 1.2.3.4');
    expect(run.result.body6).toBe('hello from IPv6');
    expect(run.result.hosts).toEqual(['1.2.3.4']);
    expect(run.result.rebind).toEqual(['5.6.7.8', '127.0.0.1']);
    expect(run.result.unknown).toBe('ENOTFOUND');
    expect(run.dnsQueries.filter((q) => q.name === 'rebind.example' && q.type === 'A')).toHaveLength(2);
  });

  it('rejects when the script ends without a report', async () => {
    await expect(
      runInNamespace({ script: new URL('./netns-child.ts', import.meta.url), timeoutMs: 30_000 }),
    ).rejects.toThrow(/without a report/);
  });
});

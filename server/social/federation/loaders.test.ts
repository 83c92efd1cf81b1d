import { describe, expect, it } from 'vitest';
import { boundedLoaders, contextLoaderFactory } from './loaders.ts';
import { RemoteFetcher } from './remote-fetch.ts';

describe('remote document loading (production settings)', () => {
  it('refuses loopback, private, link-local and unique-local addresses before connecting', async () => {
    const fetcher = new RemoteFetcher({ userAgent: 'test' });
    const load = boundedLoaders(fetcher).documentLoaderFactory();
    for (const url of [
      'http://127.0.0.1:9/actor',
      'https://10.1.2.3/actor',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/actor',
      'https://localhost/actor',
    ]) {
      await expect(load(url), url).rejects.toThrow(/private address/i);
    }
    fetcher.close();
  });

  it('serves preloaded contexts and never fetches an unknown one', async () => {
    const load = contextLoaderFactory();
    const as = await load('https://www.w3.org/ns/activitystreams');
    expect(JSON.stringify(as.document)).toContain('"as":"https://www.w3.org/ns/activitystreams#"');
    const litepub = await load('https://pleroma.example/schemas/litepub-0.1.jsonld');
    expect(litepub.document).toMatchObject({
      '@context': ['https://w3id.org/security/v1', expect.objectContaining({ sensitive: 'as:sensitive' })],
    });
  });
});

import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RemoteFetcher } from './remote-fetch.ts';

/*
 * The fetcher's redirect and body rules, over an in-process transport (the `transport` test switch): what
 * reaches the network is covered by hostile-peers*.test.ts. The literal-address check applies to every hop.
 */

/** A fetcher whose requests go to `answer` (by URL), recording each requested URL. */
function fetcherAnswering(answer: (url: URL) => Response) {
  const asked: string[] = [];
  const transport = (async (input: URL | RequestInfo) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    asked.push(url.href);
    return answer(url);
  }) as typeof fetch;
  return { fetcher: new RemoteFetcher({ userAgent: 'test', transport }), asked };
}

const redirect = (to: string) => new Response(null, { status: 302, headers: { location: to } });
const accept = 'application/activity+json';

describe('RemoteFetcher', () => {
  it('follows 3 redirects, refuses a fourth and a loop', async () => {
    const chain = fetcherAnswering((url) => {
      const n = Number(url.pathname.slice(1));
      return n < 3 ? redirect(`/${n + 1}`) : new Response('{"ok":true}');
    });
    expect((await chain.fetcher.get('https://peer.example/0', { accept })).body.toString()).toBe('{"ok":true}');
    const long = fetcherAnswering((url) => redirect(`/${Number(url.pathname.slice(1)) + 1}`));
    await expect(long.fetcher.get('https://peer.example/0', { accept })).rejects.toThrow('more than 3 redirects');
    expect(long.asked).toHaveLength(4);
    const loop = fetcherAnswering((url) => redirect(url.pathname === '/a' ? '/b' : '/a'));
    await expect(loop.fetcher.get('https://peer.example/a', { accept })).rejects.toThrow('redirect loop');
  });

  it('refuses a redirect to a private or loopback address, and other schemes, before asking it', async () => {
    for (const target of ['http://127.0.0.1/key', 'https://[::1]/key', 'http://10.0.0.1/', 'file:///etc/passwd']) {
      const { fetcher, asked } = fetcherAnswering(() => redirect(target));
      await expect(fetcher.get('https://peer.example/actor', { accept }), target).rejects.toThrow(
        /private address|only http and https/,
      );
      expect(asked).toEqual(['https://peer.example/actor']);
    }
  });

  it('stops a deflate bomb at the decompressed limit and refuses an unknown encoding', async () => {
    const bomb = zlib.deflateSync(Buffer.alloc(64 * 1024 * 1024));
    const deflated = fetcherAnswering(() => new Response(bomb, { headers: { 'content-encoding': 'deflate' } }));
    await expect(deflated.fetcher.get('https://peer.example/actor', { accept })).rejects.toThrow(
      'larger than 1048576 bytes once decompressed',
    );
    const odd = fetcherAnswering(() => new Response('x', { headers: { 'content-encoding': 'zstd' } }));
    await expect(odd.fetcher.get('https://peer.example/actor', { accept })).rejects.toThrow('unknown content encoding');
  });

  it('refuses a body past the limit as received, declared or not', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const declared = fetcherAnswering(() => new Response(big, { headers: { 'content-length': String(big.length) } }));
    await expect(declared.fetcher.get('https://peer.example/a', { accept })).rejects.toThrow(
      /larger than 1048576 bytes \(2097152 declared\)/,
    );
    const streamed = fetcherAnswering(
      () => new Response(new Blob([big]).stream(), { headers: { 'content-type': 'application/activity+json' } }),
    );
    await expect(streamed.fetcher.get('https://peer.example/a', { accept })).rejects.toThrow(
      /^the answer is larger than 1048576 bytes$/,
    );
  });
});

describe('RemoteFetcher, over all fetches', () => {
  it('holds at most maxTotalBytes of bodies at once: past that a fetch fails, and the budget comes back', async () => {
    // Each answer sends 600 KiB at once and holds the rest until released: three together pass 1.5 MiB.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const transport = (async () =>
      new Response(
        new ReadableStream({
          async start(controller) {
            controller.enqueue(new Uint8Array(600 * 1024));
            await released;
            controller.close();
          },
        }),
      )) as typeof fetch;
    const fetcher = new RemoteFetcher({ userAgent: 'test', transport, limits: { maxTotalBytes: 1536 * 1024 } });
    const results = [1, 2, 3].map((n) =>
      fetcher.get(`https://peer.example/${n}`, { accept }).then(
        (r) => r.body.length,
        (err: Error) => err.message,
      ),
    );
    // The third to arrive finds the budget spent.
    const third = await Promise.race(results.map((r) => r.then((v) => (typeof v === 'string' ? v : null))));
    expect(third).toMatch(/already hold 1572864 bytes/);
    release();
    expect((await Promise.all(results)).filter((r) => r === 600 * 1024)).toHaveLength(2);
    // Nothing is held any more: a new fetch of the same size goes through.
    expect((await fetcher.get('https://peer.example/4', { accept })).body.length).toBe(600 * 1024);
  });
});

import { describe, expect, it } from 'vitest';
import { runInNamespace } from '../../security/testing/netns.ts';
import type { HostileContentReport, Measured } from './hostile-content.netns.ts';

/*
 * Issue 32, findings 3, 6, 7, 8 and 9 with the private-address guard ON, in a network + mount namespace of the
 * test's own (server/security/testing/netns.ts): one `homeport serve` as a user runs it, and hostile.example
 * on a public-looking 1.2.3.4 with a test-CA certificate, whose actors sign what they send
 * (hostile-content.netns.ts runs the attacks). Each attack fails as its fix intends, the server's memory stays
 * within MEMORY_HEADROOM of where it was (and under MEMORY_CEILING), and ordinary API requests made
 * meanwhile all answer.
 */

/** Growth of the server's resident memory any one attack may cause (the issue saw gigabytes). */
const MEMORY_HEADROOM = 150 * 1024 * 1024;
/** The server's resident memory at any moment of any attack (it starts at about 150-200 MB). */
const MEMORY_CEILING = 512 * 1024 * 1024;

function expectBounded(what: string, measured: Measured): void {
  expect(measured.rssPeak - measured.rssBefore, `${what}: memory growth`).toBeLessThan(MEMORY_HEADROOM);
  expect(measured.rssPeak, `${what}: memory`).toBeLessThan(MEMORY_CEILING);
  expect(measured.probes.length, `${what}: ordinary requests made`).toBeGreaterThan(0);
  expect(new Set(measured.probes), `${what}: ordinary requests answered`).toEqual(new Set([200]));
}

describe('a hostile fediverse server sending content, the private-address guard on', () => {
  it('is refused or trimmed as bounded, within a stated memory bound, while other requests answer', async () => {
    const run = await runInNamespace<HostileContentReport>({
      script: new URL('./hostile-content.netns.ts', import.meta.url),
      hosts: { 'hostile.example': ['1.2.3.4'] },
      addresses: ['10.1.2.3'],
      certificates: ['hostile.example'],
      timeoutMs: 240_000,
    });
    const { attachments, media, card, flood, imports } = run.result;
    console.log(JSON.stringify({ ...run.result, media: { ...media, shown: undefined } }));

    // Finding 7: refused before Fedify reads them (the 5,000 by size, the 1,000 by their count of objects).
    expect(attachments.refused.map((r) => r.status)).toEqual([413, 413]);
    expect(attachments.refused[1].text).toBe('Activity refused: it holds more than 256 objects');
    expect(attachments.kept.map((m) => m.remote_url)).toEqual(
      Array.from({ length: 16 }, (_, i) => `https://hostile.example/media/${i}.png`),
    );
    expect(attachments.tags).toEqual(['ducks']);
    expect(attachments.fetchedByAddress).toEqual([]);
    expectBounded('attachments', attachments);

    // Finding 8: no address on loopback, private or local-network hosts, no SVG as an image, default avatars.
    expect(media.attachments.map((m) => [m.type, m.url, m.remote_url])).toEqual([
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, 'https://hostile.example/media/drawing.svg'],
      ['unknown', null, 'https://hostile.example/media/vector.svg'],
      ['image', 'https://hostile.example/media/photo.png', 'https://hostile.example/media/photo.png'],
    ]);
    for (const address of ['127.0.0.1/', '10.1.2.3', '[::1]', 'localhost', 'router', 'printer.local'])
      expect(media.shown).not.toContain(address);
    const publicUrl = run.result.publicUrl;
    for (const name of ['vector', 'insider'])
      expect(media.avatars[name], name).toEqual({
        avatar: `${publicUrl}/avatars/original/missing.png`,
        avatar_static: `${publicUrl}/avatars/original/missing.png`,
        header: `${publicUrl}/headers/original/missing.png`,
        header_static: `${publicUrl}/headers/original/missing.png`,
      });
    expect(media.victimConnections).toBe(0);
    expectBounded('media', media);

    // Finding 6: the card is made from the page's head; reading it cost the server little CPU (16 s before).
    expect(card.title).toBe('A nested page');
    expect(card.pageRequests).toBe(1);
    expect(card.cpuSeconds).toBeLessThan(4);
    expectBounded('card', card);

    // Finding 9: what the inbox could not take now was refused with 503 and Retry-After; it takes more later.
    expect(Object.keys(flood.statuses).sort()).toEqual(['202', '503']);
    expect(flood.statuses['503']).toBeGreaterThan(0);
    expect(flood.retryAfter).toEqual(['60']);
    expect(flood.recovered).toBe(true);
    expectBounded('flood', flood);

    // Finding 3: the row whose lookup the server did not survive twice fails without a third lookup; rows past
    // the fetch bounds fail with the bound named.
    expect(imports.killed).toMatchObject({ state: 'finished', total_items: 1, failed_items: 1 });
    expect(imports.killed.failures[0].error).toMatch(/cut short 2 times by the server stopping/);
    expect(imports.dripLookups).toBe(2);
    expect(imports.bounded).toMatchObject({ state: 'finished', total_items: 5, failed_items: 5 });
    for (const failure of imports.bounded.failures)
      expect(failure.error, failure.data.acct).toMatch(/larger than \d+ bytes|did not answer in full within/);
    expectBounded('imports', imports);
    expect(run.result.exited).toBeNull();
  }, 300_000);
});

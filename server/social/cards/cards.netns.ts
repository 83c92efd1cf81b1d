import http from 'node:http';
import https from 'node:https';
import { connectionCounter, namespaceContext, report } from '../../security/testing/netns-child.ts';
import { startSocialTestServer } from '../testing/harness.ts';

/*
 * Run by cards.netns.test.ts inside its namespace: a whole Homeport as served (preview cards on, the
 * private-address guard on), a web site on the public-looking 1.2.3.4 (http on 80, https on 443 with a
 * test-CA certificate) with an article and redirects to loopback and private addresses, and bare listeners
 * on loopback and a private address counting any connection that reaches them. One post per link the test
 * names; the report says which got a card.
 */

export interface CardsNetnsReport {
  /** Per link: whether the post's HTML links it (the link was found) and the card's title, or null. */
  cards: Record<string, { linked: boolean; title: string | null }>;
  /** Requests the public site got, by path. */
  siteHits: string[];
  /** Connections that reached each loopback or private listener (address:port). */
  victims: Record<string, number>;
}

const { certificates, input: links } = namespaceContext<string[]>();
const siteHits: string[] = [];
const REDIRECTS: Record<string, string> = {
  '/to-loopback': 'http://127.0.0.1/a',
  '/to-mapped': 'http://[::ffff:7f00:1]/a',
  '/to-loopback6': 'http://[::1]/a',
  '/to-private-name': 'http://private.example/a',
  '/to-localhost': 'https://localhost/a',
};
const site: http.RequestListener = (req, res) => {
  siteHits.push(req.url ?? '');
  const target = REDIRECTS[req.url ?? ''];
  if (target) return res.writeHead(302, { location: target }).end();
  if (req.url !== '/article') return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    '<!doctype html><html><head><meta property="og:title" content="A public article">' +
      '<meta property="og:description" content="Served from 1.2.3.4."></head><body>hello</body></html>',
  );
};
const servers = [http.createServer(site), https.createServer(certificates['site.example'], site)];
await Promise.all(
  servers.map((s, i) => new Promise<void>((resolve) => s.listen(i === 0 ? 80 : 443, '1.2.3.4', resolve))),
);
const victimEnds = ['127.0.0.1:80', '127.0.0.1:443', '[::1]:80', '[::1]:443', '10.1.2.3:80', '10.1.2.3:443'];
const victims = await Promise.all(
  victimEnds.map((end) => {
    const url = new URL(`http://${end}`);
    return connectionCounter(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port));
  }),
);

const server = await startSocialTestServer();
const result: CardsNetnsReport = { cards: {}, siteHits, victims: {} };
try {
  const alice = await server.createUser('alice');
  for (const link of links) {
    const created = await server.call(alice.token, 'POST', '/api/v1/statuses', { status: `see ${link}` });
    if (created.status !== 200) throw new Error(`posting ${link}: HTTP ${created.status}`);
    await server.social.previewCards.idle();
    const status = (await server.call(alice.token, 'GET', `/api/v1/statuses/${created.body.id}`)).body;
    result.cards[link] = {
      linked: String(status.content).includes(`href="${link}"`),
      title: status.card?.title ?? null,
    };
  }
} finally {
  await server.close();
  for (const s of servers) s.close();
  victimEnds.forEach((end, i) => (result.victims[end] = victims[i].connections));
  await Promise.all(victims.map((v) => v.close()));
}
await report(result);

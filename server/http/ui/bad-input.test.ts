import { describe, expect, it } from 'vitest';
import { useTestHomeport } from '../testing/homeport.ts';

const server = useTestHomeport();

/** Every route of the UI API as the server itself lists them (fastify's route tree), so new ones are swept too. */
function uiRoutes(): { method: string; url: string }[] {
  const stack: string[] = [];
  const routes: { method: string; url: string }[] = [];
  for (const line of server.hp.http.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack[depth] = m[2];
    const url = `/${stack.join('')}`.replace(/^\/+/, '/');
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD' && x !== 'OPTIONS'))
      routes.push({ method, url });
  }
  return routes.filter((r) => r.url.startsWith('/api/homeport/v1/'));
}

const concrete = (url: string) =>
  url
    .replace(':stream', 'sweep-stream')
    .replace(':group', 'sweepers')
    .replace(':number', 'not-a-number')
    .replace(':name', 'nobody');

describe('UI API under malformed, wrong-typed and oversized input', () => {
  it('never answers 5xx on any route', async () => {
    const routes = uiRoutes();
    expect(routes.length).toBeGreaterThan(20);
    expect(routes).toContainEqual({ method: 'PUT', url: '/api/homeport/v1/eventlog/streams/:stream/metadata' });
    const wrongTyped = JSON.stringify({
      directory: { x: 1 },
      username: ['a'],
      password: 5,
      currentPassword: null,
      newPassword: [],
      name: {},
      groups: 'x',
      events: 'x',
      eventType: 7,
      data: 'x',
      stopAt: 'soon',
      maxCount: -5,
    });
    const bodies: { label: string; contentType: string; body: string | Buffer }[] = [
      { label: 'malformed JSON', contentType: 'application/json', body: '{"unterminated": ' },
      { label: 'a JSON array', contentType: 'application/json', body: '[1,2,3]' },
      { label: 'wrong types', contentType: 'application/json', body: wrongTyped },
      { label: 'oversized', contentType: 'application/json', body: Buffer.alloc(17 * 1024 * 1024, 0x20) },
      { label: 'a form', contentType: 'application/x-www-form-urlencoded', body: 'a=1&b[]=2' },
    ];
    const failures: string[] = [];
    let requests = 0;
    for (const route of routes) {
      const url = `${server.hp.httpUrl}${concrete(route.url)}?count=lots&from=-x&direction=sideways&limit=1e99&level=nope&q=${'x'.repeat(5000)}`;
      for (const bad of route.method === 'GET' || route.method === 'DELETE' ? [bodies[0]] : bodies) {
        const withBody = route.method !== 'GET';
        const res = await fetch(url, {
          method: route.method,
          // A fresh owner token each time: a DELETE /session in the sweep must not end the others' session.
          headers: {
            authorization: `Bearer ${server.hp.mintUiToken()}`,
            ...(withBody ? { 'content-type': bad.contentType } : {}),
          },
          body: withBody ? (bad.body as BodyInit) : undefined,
        }).catch((err: Error) => ({ status: 0, text: async () => err.message }));
        requests++;
        if (res.status >= 500 || res.status === 0)
          failures.push(
            `${route.method} ${route.url} [${bad.label}] → ${res.status} ${(await res.text()).slice(0, 200)}`,
          );
      }
    }
    console.log(`UI API sweep: ${routes.length} routes, ${requests} bad requests, ${failures.length} answered 5xx`);
    expect(failures).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES } from '../domain/index.ts';
import {
  apiCall as call,
  eventually,
  type TestInstance,
  useServers,
  type NetworkUser as User,
} from './testing/test-network.ts';

/*
 * CSV imports worked off in the background (Mastodon's BulkImport): answered 202 at once, their remote
 * lookups made a few at a time, progress and failed rows visible while and after they run, resumed after a
 * restart; a file that cannot be imported is refused with a 422.
 */

const hosts = useServers({ b: {}, c: { imports: { concurrency: 2 } } });
let alice: User;

const FOLLOWS_HEADER = 'Account address,Show boosts,Notify on new posts,Languages';

/** Holds b.test's WebFinger answers until `release`, counting how many wait at once (the lookups in flight). */
function holdWebFinger(instance: TestInstance, only?: (resource: string) => boolean) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const state = { waiting: 0, most: 0, seen: [] as string[], release };
  instance.intercept = async (req) => {
    const url = new URL(req.url);
    const resource = url.searchParams.get('resource') ?? '';
    if (url.pathname !== '/.well-known/webfinger' || (only && !only(resource))) return null;
    state.seen.push(resource);
    state.waiting++;
    state.most = Math.max(state.most, state.waiting);
    await held;
    state.waiting--;
    return null;
  };
  return state;
}

/** Posts an import as Mastodon's form does: the file uploaded in a multipart body. */
async function upload(
  instance: TestInstance,
  user: User,
  fields: Record<string, string>,
  file: Uint8Array<ArrayBuffer> | string,
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('data', new Blob([file], { type: 'text/csv' }), 'following_accounts.csv');
  const res = await fetch(`${instance.url}/api/v1/homeport/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  return { status: res.status, json: await res.json() };
}

async function finished(instance: TestInstance, user: User, id: string) {
  return eventually(async () => {
    const res = await call(instance, user, 'GET', `/api/v1/homeport/imports/${id}`);
    return res.json?.state === 'finished' ? res.json : null;
  }, `import ${id} finished`);
}

async function followed(_instance: TestInstance, user: User, count: number): Promise<string[]> {
  const list = await eventually(async () => {
    const found = await user.client.v1.accounts.$select(user.accountId).following.list({ limit: 80 });
    return found.length === count ? found : null;
  }, `${count} follows accepted`);
  return list.map((a) => a.acct).sort();
}

beforeAll(async () => {
  for (let i = 0; i < 5; i++) await hosts.b.createUser(`u${i}`);
  for (let i = 0; i < 3; i++) await hosts.b.createUser(`v${i}`);
  alice = await hosts.c.createUser('alice');
});

describe('CSV imports in the background', () => {
  it('answers at once and looks up remote accounts two at a time, showing progress and the rows that failed', async () => {
    const hold = holdWebFinger(hosts.b);
    const csv = [
      FOLLOWS_HEADER,
      ...[0, 1, 2, 3, 4].map((i) => `u${i}@b.test,true,false,`),
      'nobody@b.test,true,false,',
    ].join('\n');
    const res = await call(hosts.c, alice, 'POST', '/api/v1/homeport/imports', {
      type: 'following_accounts',
      data: csv,
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toMatchObject({ type: 'following_accounts', mode: 'merge', total_items: 6, processed_items: 0 });

    await eventually(() => hold.waiting === 2, 'two lookups in flight');
    // Bounded: while those two wait, no third lookup starts.
    await new Promise((r) => setTimeout(r, 200));
    expect(hold.waiting).toBe(2);
    const running = await call(hosts.c, alice, 'GET', `/api/v1/homeport/imports/${res.json.id}`);
    expect(running.json).toMatchObject({ state: 'in_progress', total_items: 6, processed_items: 0, imported_items: 0 });

    // One unfinished import of a type at a time; another type may start meanwhile.
    const second = await call(hosts.c, alice, 'POST', '/api/v1/homeport/imports', {
      type: 'following_accounts',
      data: 'u0@b.test',
    });
    expect(second.status).toBe(422);
    expect(second.json.details.type[0].error).toBe('ERR_TAKEN');
    const domains = await call(hosts.c, alice, 'POST', '/api/v1/homeport/imports', {
      type: 'blocked_domains',
      data: '#domain\nspam.example',
    });
    expect(domains.status, domains.text).toBe(202);
    expect(await finished(hosts.c, alice, domains.json.id)).toMatchObject({ processed_items: 1, imported_items: 1 });

    hold.release();
    const done = await finished(hosts.c, alice, res.json.id);
    expect(hold.most).toBe(2);
    expect(done).toMatchObject({ total_items: 6, processed_items: 6, imported_items: 5, failed_items: 1 });
    expect(done.failures).toEqual([
      {
        row: 6,
        data: { acct: 'nobody@b.test', show_reblogs: true, notify: false, languages: null },
        error: 'no account was found at that address',
      },
    ]);
    expect(await followed(hosts.c, alice, 5)).toEqual([
      'u0@b.test',
      'u1@b.test',
      'u2@b.test',
      'u3@b.test',
      'u4@b.test',
    ]);

    // The failed rows come back as a file of the same kind, to import again later.
    const failures = await call(hosts.c, alice, 'GET', `/api/v1/homeport/imports/${res.json.id}/failures.csv`);
    expect(failures.text.trim().split('\n')).toEqual([FOLLOWS_HEADER, 'nobody@b.test,true,false,']);
    const listed = await call(hosts.c, alice, 'GET', '/api/v1/homeport/imports');
    expect(listed.json.map((i: { id: string }) => i.id)).toEqual([domains.json.id, res.json.id]);
  });

  it('replaces what the file does not hold when overwriting, keeping the accounts it names with its options', async () => {
    hosts.b.intercept = null;
    const olive = await hosts.c.createUser('olive');
    const merge = await call(hosts.c, olive, 'POST', '/api/v1/homeport/imports', {
      type: 'following_accounts',
      data: 'u0@b.test\nu1@b.test',
    });
    await finished(hosts.c, olive, merge.json.id);
    expect(await followed(hosts.c, olive, 2)).toEqual(['u0@b.test', 'u1@b.test']);

    const csv = [FOLLOWS_HEADER, 'u1@b.test,false,true,', 'u2@b.test,true,false,de'].join('\n');
    const res = await upload(hosts.c, olive, { type: 'following_accounts', mode: 'overwrite' }, csv);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ mode: 'overwrite', total_items: 2 });
    expect(await finished(hosts.c, olive, res.json.id)).toMatchObject({ processed_items: 2, imported_items: 2 });
    expect(await followed(hosts.c, olive, 2)).toEqual(['u1@b.test', 'u2@b.test']);
    const u1 = await olive.client.v1.accounts.lookup({ acct: 'u1@b.test' });
    const [relationship] = await olive.client.v1.accounts.relationships.fetch({ id: [u1.id] });
    expect(relationship).toMatchObject({ following: true, showingReblogs: false, notifying: true });
  });

  it('goes on with an interrupted import after a restart', async () => {
    let d = await hosts.net.add('d.test', { imports: { concurrency: 1 } });
    const dave = await d.createUser('dave');
    // v0 is looked up at once; v1's lookup is left waiting when d stops.
    const hold = holdWebFinger(hosts.b, (resource) => resource.includes('v1@'));
    const res = await call(d, dave, 'POST', '/api/v1/homeport/imports', {
      type: 'following_accounts',
      data: 'v0@b.test\nv1@b.test\nv2@b.test',
    });
    expect(res.status, res.text).toBe(202);
    await eventually(() => hold.waiting === 1, 'v1 looked up');
    // v0's follow is accepted first: b's answer must not find d stopped.
    expect(await followed(d, dave, 1)).toEqual(['v0@b.test']);
    expect((await call(d, dave, 'GET', `/api/v1/homeport/imports/${res.json.id}`)).json).toMatchObject({
      state: 'in_progress',
      processed_items: 1,
    });

    await d.close({ keepData: true });
    hold.release();
    d = await hosts.net.add('d.test', { dataDir: d.dir, imports: { concurrency: 1 } });
    expect(await finished(d, dave, res.json.id)).toMatchObject({ processed_items: 3, imported_items: 3, failures: [] });
    expect(await followed(d, dave, 3)).toEqual(['v0@b.test', 'v1@b.test', 'v2@b.test']);
  });

  it('fails a row whose server does not answer in time, and at once the next rows for that server', async () => {
    const e = await hosts.net.add('e.test', { imports: { concurrency: 1, rowTimeoutMs: 1000 } });
    const erin = await e.createUser('erin');
    // u0 known beforehand: its row must not be timed against a cold first lookup.
    await erin.client.v2.search.list({ q: 'u0@b.test', resolve: true, type: 'accounts' });
    let answer!: () => void;
    const silent = new Promise<void>((resolve) => (answer = resolve));
    let asked = 0;
    hosts.net.addRemote('slow.test', async () => {
      asked++;
      await silent;
      return new Response('gone', { status: 404 });
    });
    try {
      const res = await call(e, erin, 'POST', '/api/v1/homeport/imports', {
        type: 'blocked_accounts',
        data: 'x@slow.test\ny@slow.test\nu0@b.test',
      });
      const done = await finished(e, erin, res.json.id);
      expect(done).toMatchObject({ processed_items: 3, imported_items: 1 });
      expect(done.failures.map((f: { data: { acct: string }; error: string }) => [f.data.acct, f.error])).toEqual([
        ['x@slow.test', 'its server did not answer within 1 s'],
        ['y@slow.test', 'its server (slow.test) did not answer a moment ago; import this row again later'],
      ]);
      // y was not asked for: its row failed without a lookup.
      expect(asked).toBe(1);
      expect((await erin.client.v1.blocks.list()).map((a) => a.acct)).toEqual(['u0@b.test']);
    } finally {
      answer();
    }
  });

  it('refuses a file that cannot be imported with a 422 naming why', async () => {
    const refused = async (body: object, field: string, error: string) => {
      const res = await call(hosts.c, alice, 'POST', '/api/v1/homeport/imports', body);
      expect(res.status, res.text).toBe(422);
      expect(res.json.details[field][0].error, res.text).toBe(error);
    };
    await refused({ type: 'blocked_domains', data: 'a,"unclosed' }, 'data', 'ERR_INVALID');
    await refused(
      { type: 'blocked_domains', data: `${'x'.repeat(MAX_IMPORT_BYTES - 8)}.example\n` },
      'data',
      'ERR_TOO_LONG',
    );
    await refused({ type: 'following_accounts', data: '#domain\nspam.example' }, 'data', 'ERR_INVALID');
    await refused({ type: 'muted_accounts', data: 'Account address,Hide notifications\n' }, 'data', 'ERR_BLANK');
    await refused({ type: 'contacts', data: 'u0@b.test' }, 'type', 'ERR_INCLUSION');
    const latin1 = await upload(
      hosts.c,
      alice,
      { type: 'blocked_accounts' },
      new Uint8Array([0x6a, 0xf6, 0x72, 0x67, 0x40, 0x62, 0x2e, 0x74, 0x65, 0x73, 0x74]),
    );
    expect(latin1.status).toBe(422);
    expect(latin1.json.details.data[0].description).toBe('is not UTF-8 text');
    expect((await call(hosts.c, alice, 'GET', '/api/v1/homeport/imports/1')).status).toBe(404);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, events, linkEvent, metadataEvent, OPS, openTestStore, type TestStore } from './testing/store.ts';
import { ExpectedVersion, type Principal } from './types.ts';

const { Any, NoStream } = ExpectedVersion;
const ALICE: Principal = { name: 'alice', groups: [] };
const BOB: Principal = { name: 'bob', groups: ['devs'] };
const START = { commitPosition: 0, preparePosition: 0 };

let t: TestStore;
beforeEach(() => {
  t = openTestStore();
});
afterEach(async () => {
  await t.close();
});

async function setAcl(streamId: string, acl: Record<string, unknown>): Promise<void> {
  const r = await t.store.appendToStream(`$$${streamId}`, Any, [metadataEvent({ $acl: acl })], ADMIN);
  expect(r.result).toBe('Success');
}

describe('default access (no $acl, no $settings)', () => {
  it('lets anyone, anonymous included, use user streams and their metadata', async () => {
    expect((await t.store.appendToStream('s', Any, events(1), null)).result).toBe('Success');
    expect(t.store.readStreamForward('s', 0, 10, false, null).result).toBe('Success');
    expect((await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 5 })], null)).result).toBe('Success');
    expect(t.store.readEvent('$$s', -1, false, null).result).toBe('Success');
    expect((await t.store.deleteStream('s', Any, false, null)).result).toBe('Success');
  });

  it('keeps $all and other system streams to $admins: anonymous and ops are denied', async () => {
    await t.store.appendToStream('s', Any, events(1), null);
    expect(t.store.readAllForward(START, 10, false, null)).toMatchObject({
      result: 'AccessDenied',
      events: [],
      nextPosition: { commitPosition: -1, preparePosition: -1 },
    });
    expect(t.store.readAllBackward({ commitPosition: -1, preparePosition: -1 }, 10, false, null).result).toBe(
      'AccessDenied',
    );
    expect(t.store.filteredReadAllForward(START, 10, 10, null, false, null).result).toBe('AccessDenied');
    expect(t.store.readAllForward(START, 10, false, OPS).result).toBe('AccessDenied');
    expect(t.store.readAllForward(START, 10, false, ADMIN).result).toBe('Success');
    expect(t.store.checkReadAccess('', null)).toBe(false);
    expect(t.store.checkReadAccess('$all', ADMIN)).toBe(true);
    expect(t.store.checkReadAccess('s', null)).toBe(true);
    expect((await t.store.appendToStream('$system-thing', Any, events(1), null)).result).toBe('AccessDenied');
    expect((await t.store.appendToStream('$system-thing', Any, events(1), ALICE)).result).toBe('AccessDenied');
    expect((await t.store.appendToStream('$system-thing', Any, events(1), ADMIN)).result).toBe('Success');
    expect(t.store.readStreamForward('$system-thing', 0, 10, false, null).result).toBe('AccessDenied');
    expect(t.store.readEvent('$system-thing', 0, false, ALICE).result).toBe('AccessDenied');
  });

  it('never allows deleting a metadata stream or writing/deleting $all, not even for admins', async () => {
    await t.store.appendToStream('s', Any, events(1), null);
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 5 })], null);
    expect((await t.store.deleteStream('$$s', Any, false, ADMIN)).result).toBe('AccessDenied');
    expect((await t.store.deleteStream('$all', Any, true, ADMIN)).result).toBe('AccessDenied');
    expect((await t.store.appendToStream('$all', Any, events(1), ADMIN)).result).toBe('AccessDenied');
    expect((await t.store.startTransaction('$all', Any, ADMIN)).result).toBe('AccessDenied');
  });
});

describe('stream $acl', () => {
  it('$r admits the listed users and groups; $admins always; anonymous never', async () => {
    await t.store.appendToStream('secret', NoStream, events(2), null);
    await setAcl('secret', { $r: ['alice', 'devs'] });
    for (const caller of [ALICE, BOB, ADMIN])
      expect(t.store.readStreamForward('secret', 0, 10, false, caller).result).toBe('Success');
    expect(t.store.readStreamForward('secret', 0, 10, false, null)).toMatchObject({
      result: 'AccessDenied',
      lastEventNumber: -1,
      nextEventNumber: -1,
    });
    expect(t.store.readStreamBackward('secret', -1, 10, false, OPS).result).toBe('AccessDenied');
    expect(t.store.readEvent('secret', 0, false, null)).toEqual({ result: 'AccessDenied' });
    expect(t.store.checkReadAccess('secret', null)).toBe(false);
    expect(t.store.checkReadAccess('secret', BOB)).toBe(true);
    // Roles not in the stream's $acl fall back to the defaults: anyone may still write.
    expect((await t.store.appendToStream('secret', Any, events(1), null)).result).toBe('Success');
  });

  it('an empty role list admits only $admins', async () => {
    await t.store.appendToStream('locked', NoStream, events(1), null);
    await setAcl('locked', { $r: [] });
    expect(t.store.readStreamForward('locked', 0, 10, false, ALICE).result).toBe('AccessDenied');
    expect(t.store.readStreamForward('locked', 0, 10, false, ADMIN).result).toBe('Success');
  });

  it('$w, $d, $mr and $mw guard appends, transactions, deletes and metadata', async () => {
    await t.store.appendToStream('g', NoStream, events(2), null);
    await setAcl('g', { $w: '$admins', $d: '$admins', $mr: 'alice', $mw: 'alice' });
    expect((await t.store.appendToStream('g', Any, events(1), null)).result).toBe('AccessDenied');
    expect((await t.store.appendToStream('g', Any, events(1), ALICE)).result).toBe('AccessDenied');
    expect((await t.store.appendToStream('g', Any, events(1), ADMIN)).result).toBe('Success');
    expect(await t.store.startTransaction('g', Any, null)).toMatchObject({ result: 'AccessDenied' });
    // Authorization comes before the version check (NEC "Test Delete Stream With No Access").
    expect((await t.store.deleteStream('g', 10, false, null)).result).toBe('AccessDenied');
    expect(t.store.readEvent('$$g', -1, false, null).result).toBe('AccessDenied');
    expect(t.store.readEvent('$$g', -1, false, ALICE).result).toBe('Success');
    expect((await t.store.appendToStream('$$g', Any, [metadataEvent({})], BOB)).result).toBe('AccessDenied');
    expect((await t.store.appendToStream('$$g', Any, [metadataEvent({ $acl: {} })], ALICE)).result).toBe('Success');
    expect((await t.store.appendToStream('g', Any, events(1), null)).result).toBe('Success');
  });

  it('a transaction started by someone allowed is still checked on write and commit', async () => {
    await t.store.appendToStream('tx', NoStream, events(1), null);
    const started = await t.store.startTransaction('tx', Any, ALICE);
    await setAcl('tx', { $w: 'alice' });
    expect((await t.store.transactionWrite(started.transactionId, events(1), BOB)).result).toBe('AccessDenied');
    expect((await t.store.transactionWrite(started.transactionId, events(1), ALICE)).result).toBe('Success');
    expect((await t.store.commitTransaction(started.transactionId, BOB)).result).toBe('AccessDenied');
    expect(await t.store.commitTransaction(started.transactionId, ALICE)).toMatchObject({
      result: 'Success',
      firstEventNumber: 1,
    });
  });
});

describe('$settings default ACLs', () => {
  it('$userStreamAcl and $systemStreamAcl replace the built-in defaults; a stream $acl still wins', async () => {
    await t.store.appendToStream('plain', NoStream, events(1), null);
    await t.store.appendToStream('$stats-x', NoStream, events(1), ADMIN);
    await t.store.appendToStream('open', NoStream, events(1), null);
    await setAcl('open', { $r: '$all' });
    const settings = await t.store.appendToStream(
      '$settings',
      Any,
      [
        {
          ...metadataEvent({
            $userStreamAcl: { $r: '$admins', $w: ['writers'] },
            $systemStreamAcl: { $r: ['ops-readers', '$ops'] },
          }),
          eventType: '$settings',
        },
      ],
      ADMIN,
    );
    expect(settings.result).toBe('Success');
    expect(t.store.readStreamForward('plain', 0, 10, false, null).result).toBe('AccessDenied');
    expect(t.store.readStreamForward('plain', 0, 10, false, ALICE).result).toBe('AccessDenied');
    expect(t.store.readStreamForward('open', 0, 10, false, null).result).toBe('Success');
    expect((await t.store.appendToStream('plain', Any, events(1), { name: 'w', groups: ['writers'] })).result).toBe(
      'Success',
    );
    expect((await t.store.appendToStream('plain', Any, events(1), ALICE)).result).toBe('AccessDenied');
    // Roles $settings leaves out come from the built-in default ($all for user streams).
    expect((await t.store.deleteStream('plain', Any, false, ALICE)).result).toBe('Success');
    expect(t.store.readStreamForward('$stats-x', 0, 10, false, OPS).result).toBe('Success');
    expect(t.store.readAllForward(START, 10, false, OPS).result).toBe('Success');
    expect(t.store.readStreamForward('$stats-x', 0, 10, false, ALICE).result).toBe('AccessDenied');
    // $settings itself is a system stream: not writable by others.
    expect((await t.store.appendToStream('$settings', Any, events(1), ALICE)).result).toBe('AccessDenied');
  });

  it('is picked up after a restart', async () => {
    await t.store.appendToStream('plain', NoStream, events(1), null);
    await t.store.appendToStream('$settings', Any, [metadataEvent({ $userStreamAcl: { $r: '$admins' } })], ADMIN);
    await t.store.close();
    const store = t.reopen();
    expect(store.readStreamForward('plain', 0, 10, false, null).result).toBe('AccessDenied');
  });
});

describe('links ($>) and resolve_link_tos', () => {
  async function fixture(): Promise<void> {
    await t.store.appendToStream('target', NoStream, events(3, 'target-event'), null);
    await t.store.appendToStream(
      'links',
      NoStream,
      [
        linkEvent('0@target'),
        linkEvent('2@target'),
        linkEvent('9@target'),
        linkEvent('abc@target'),
        linkEvent('1@missing'),
        linkEvent('no-at-sign'),
      ],
      null,
    );
  }

  it('returns links as plain events unless asked to resolve them', async () => {
    await fixture();
    const r = t.store.readStreamForward('links', 0, 10, false, null);
    expect(r.events.every((e) => e.event!.eventType === '$>' && e.link === undefined)).toBe(true);
  });

  it('resolves found targets, leaves gone targets unresolved, keeps unparseable payloads as ordinary events', async () => {
    await fixture();
    const r = t.store.readStreamForward('links', 0, 10, true, null);
    expect(r.result).toBe('Success');
    const [found0, found2, beyond, garbage, missing, noAt] = r.events;
    expect(found0.event).toMatchObject({ streamId: 'target', eventNumber: 0, eventType: 'target-event' });
    expect(found0.link).toMatchObject({ streamId: 'links', eventNumber: 0, eventType: '$>' });
    expect(found2.event!.eventNumber).toBe(2);
    expect(beyond.event).toBeUndefined();
    expect(beyond.link!.eventNumber).toBe(2);
    expect(garbage).toEqual({ event: expect.objectContaining({ eventType: '$>', eventNumber: 3 }) });
    expect(missing.event).toBeUndefined();
    expect(missing.link!.eventNumber).toBe(4);
    expect(noAt.link).toBeUndefined();
    expect(noAt.event!.eventType).toBe('$>');
  });

  it('treats targets hidden by $tb/$maxCount or deleted as gone', async () => {
    await fixture();
    await t.store.appendToStream('$$target', Any, [metadataEvent({ $tb: 1 })], null);
    let r = t.store.readStreamForward('links', 0, 2, true, null);
    expect(r.events[0].event).toBeUndefined();
    expect(r.events[1].event!.eventNumber).toBe(2);
    await t.store.deleteStream('target', Any, true, null);
    r = t.store.readStreamForward('links', 0, 2, true, null);
    expect(r.events.map((e) => e.event)).toEqual([undefined, undefined]);
  });

  it('answers AccessDenied for the whole read when a target is not readable', async () => {
    await fixture();
    await setAcl('target', { $r: 'alice' });
    expect(t.store.readStreamForward('links', 0, 10, true, null).result).toBe('AccessDenied');
    expect(t.store.readStreamForward('links', 0, 10, false, null).result).toBe('Success');
    expect(t.store.readStreamForward('links', 0, 10, true, ALICE).result).toBe('Success');
    expect(t.store.readEvent('links', 0, true, null).result).toBe('AccessDenied');
    expect(t.store.readAllForward(START, 100, true, ADMIN).result).toBe('Success');
    const link = t.store.readEvent('links', 0, false, null).event!.event!;
    expect(t.store.resolveLink(link, null)).toEqual({ link });
    expect(t.store.resolveLink(link, ALICE).event!.streamId).toBe('target');
  });

  it("resolves in ReadEvent and $all reads, where the position stays the link's", async () => {
    await fixture();
    const one = t.store.readEvent('links', 1, true, null);
    expect(one.event!.event!.eventNumber).toBe(2);
    expect(one.event!.link!.eventNumber).toBe(1);
    const all = t.store.readAllForward(START, 100, true, ADMIN).events;
    const resolved = all.find((e) => e.link?.eventNumber === 0 && e.link.streamId === 'links')!;
    expect(resolved.event!.streamId).toBe('target');
    expect(resolved.commitPosition).toBe(resolved.link!.commitPosition);
    expect(resolved.preparePosition).toBe(resolved.link!.preparePosition);
  });
});

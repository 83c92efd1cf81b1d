import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { useSocialTestServer } from '../testing/use-server.ts';

/*
 * Timeline pages are written as JSON text from cached pieces (presentText); every other response builds
 * objects (present). Both must say the same thing to every viewer, before and after the statuses change.
 */

const t = useSocialTestServer('author', 'reader');

function renderings(statusIds: string[], viewerId: string | null) {
  const { store, statusPresenter } = t.server.social.context;
  const rows = statusIds.map((id) => store.statuses.byId(id)!);
  const viewer = viewerId === null ? null : store.accounts.byId(viewerId);
  const objects = statusPresenter.present(rows, viewer, { context: 'home' });
  const raw = statusPresenter.presentText(rows, viewer, { context: 'home' });
  // Byte for byte what the plain serializer gives (key order included), not only equal once parsed.
  expect(raw).toBe(JSON.stringify(objects));
  return { objects, text: JSON.parse(raw) as unknown };
}

describe('status JSON as text', () => {
  it('says what the object rendering says, for every viewer, and follows edits, counts and votes', async () => {
    const a = t.server.masto(t.author.token);
    const r = t.server.masto(t.reader.token);
    await r.v1.accounts.$select(t.author.accountId).follow();
    const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#abcdef' } })
      .png()
      .toBuffer();
    const media = await a.v1.media.create({
      file: new Blob([new Uint8Array(png)], { type: 'image/png' }),
      description: 'a tiny square',
    });
    t.server.social.context.store.emojis.put({
      shortcode: 'homeport',
      imagePath: 'homeport.png',
      staticPath: 'homeport.png',
      category: null,
      visibleInPicker: true,
    });
    const withMedia = await a.v1.statuses.create({
      status: 'picture for @reader #tiny "quoted" \\ \u2028 ünïcode 🏠 :homeport:',
      mediaIds: [media.id],
      spoilerText: 'cw',
      sensitive: true,
    });
    const poll = await a.v1.statuses.create({ status: 'choose', poll: { options: ['one', 'two'], expiresIn: 3600 } });
    const privately = await a.v1.statuses.create({ status: 'followers only', visibility: 'private' });
    const boost = await r.v1.statuses.$select(withMedia.id).reblog();
    await r.v1.statuses.$select(poll.id).favourite();
    await r.v1.statuses.$select(withMedia.id).bookmark();
    await a.v1.statuses.$select(poll.id).pin();
    await r.v1.statuses.$select(privately.id).mute();
    await r.v2.filters.create({
      title: 'no polls',
      context: ['home'],
      filterAction: 'warn',
      keywordsAttributes: [{ keyword: 'choose' }],
    });

    const quoting = await r.v1.statuses.create({ status: 'quoting it', quotedStatusId: withMedia.id } as never);
    const ids = [boost.id, privately.id, poll.id, withMedia.id, quoting.id];
    for (const viewer of [t.reader.accountId, t.author.accountId, null]) {
      const { objects, text } = renderings(ids, viewer);
      expect(text).toEqual(objects);
    }
    const before = renderings(ids, t.reader.accountId);
    expect((before.text as { reblog: { bookmarked: boolean } }[])[0].reblog.bookmarked).toBe(true);
    expect((before.text as { filtered: unknown[] }[])[2].filtered).toHaveLength(1);
    const shownBefore = before.text as { muted: boolean; emojis: { shortcode: string }[]; mentions: unknown[] }[];
    expect(shownBefore[1].muted).toBe(true);
    expect(shownBefore[3].emojis.map((e) => e.shortcode)).toEqual(['homeport']);
    expect(shownBefore[3].mentions).toHaveLength(1);

    // Edits, votes and counters change what the cached pieces must not hide.
    await a.v1.statuses.$select(withMedia.id).update({ status: 'edited picture', mediaIds: [media.id] });
    await r.v1.polls.$select(poll.poll!.id).votes.create({ choices: [1] });
    await a.v1.statuses.$select(poll.id).favourite();
    await a.v1.accounts.updateCredentials({ displayName: 'Renamed Author' });
    const after = renderings(ids, t.reader.accountId);
    expect(after.text).toEqual(after.objects);
    const [boosted, , polled] = after.text as {
      reblog: { content: string; edited_at: string | null; account: { display_name: string } };
      favourites_count: number;
      poll: { voted: boolean; votes_count: number };
    }[];
    expect(boosted.reblog.content).toContain('edited picture');
    expect(boosted.reblog.edited_at).not.toBeNull();
    expect(boosted.reblog.account.display_name).toBe('Renamed Author');
    expect(polled.favourites_count).toBe(2);
    expect(polled.poll).toMatchObject({ voted: true, votes_count: 1 });
  });

  it('shows a link card or quote that changed after the status was shown, whatever wrote the change', async () => {
    const a = t.server.masto(t.author.token);
    const r = t.server.masto(t.reader.token);
    const linking = await a.v1.statuses.create({ status: 'see https://example.org/page' });
    const quoting = await r.v1.statuses.create({ status: 'quoting again', quotedStatusId: linking.id } as never);
    const db = t.server.social.context.store.db;
    const shown = () => {
      const { objects, text } = renderings([linking.id, quoting.id], t.reader.accountId);
      expect(text).toEqual(objects);
      return text as { card: { title: string } | null; quote: { state: string } | null }[];
    };
    expect(shown()[0].card).toBeNull();
    expect(shown()[1].quote?.state).toBe('accepted');
    // Written straight to the tables, as another process (or a path that forgot to say so) would.
    const now = Date.now();
    const cardId = db
      .prepare(
        "INSERT INTO preview_cards (url, title, created_at, updated_at) VALUES ('https://example.org/page', 'First title', ?, ?) RETURNING id",
      )
      .pluck()
      .get(now, now);
    db.prepare(
      "INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (?, ?, 'https://example.org/page')",
    ).run(linking.id, cardId);
    expect(shown()[0].card?.title).toBe('First title');
    db.prepare("UPDATE preview_cards SET title = 'Refreshed title' WHERE id = ?").run(cardId);
    expect(shown()[0].card?.title).toBe('Refreshed title');
    db.prepare("UPDATE quotes SET state = 'revoked' WHERE status_id = ?").run(quoting.id);
    expect(shown()[1].quote?.state).toBe('revoked');
    db.prepare('DELETE FROM preview_cards_statuses WHERE status_id = ?').run(linking.id);
    expect(shown()[0].card).toBeNull();
  });

  it('writes timeline pages the clients read as before', async () => {
    const home = await t.server.masto(t.reader.token).v1.timelines.home.list({ limit: 40 });
    expect(home.length).toBeGreaterThan(0);
    const res = await t.server.fetch(`${t.server.url}/api/v1/timelines/home`, {
      headers: { Authorization: `Bearer ${t.reader.token}` },
    });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // server.fetch validates the body against the OpenAPI schema.
    expect(((await res.json()) as { id: string }[]).map((s) => s.id)).toEqual(home.slice(0, 20).map((s) => s.id));
  });
});

import type { SocialTestServer } from './harness.ts';

/**
 * An account's home page (20 statuses) as the object rendering writes it now: neither a kept timeline answer
 * nor a kept status text is used, so a test can hold what the server sent against it byte for byte.
 */
export function freshHomeText(server: SocialTestServer, accountId: string): string {
  const ctx = server.social.context;
  const me = ctx.store.accounts.byId(accountId)!;
  return ctx.store.read(() => {
    const rows = ctx.store.timelines.home(ctx.store.timelines.scope(me.id), { limit: 20 });
    const shown = ctx.filters.visible(me, rows, (r) => r.status, 'home');
    return JSON.stringify(
      ctx.statusPresenter.present(
        shown.map((r) => r.status),
        me,
        { context: 'home' },
      ),
    );
  });
}

/**
 * A filter of `keyword` in the home context written straight to the store, its `filters.changed` event not yet
 * delivered: the window in which pages are read with the filters compiled before it (emit the event to close it).
 */
export async function filterBeforeItsEvent(
  server: SocialTestServer,
  accountId: string,
  keyword: string,
  action: 'warn' | 'hide',
): Promise<string> {
  const ctx = server.social.context;
  const filterId = ctx.store.transaction(() => {
    const id = ctx.store.filters.create(accountId, { title: keyword, context: ['home'], action, expiresAt: null });
    ctx.store.filters.addKeyword(id, keyword, false);
    return id;
  });
  await ctx.store.durable();
  return filterId;
}

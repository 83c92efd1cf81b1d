import { HOMEPORT_VERSION } from '../../version.ts';
import { LIMITS, MASTODON_API_VERSION, MASTODON_COMPAT_VERSION } from '../limits.ts';
import { isListed, type Account, type SocialStore } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import type { AccountPresenter } from './account.ts';

/**
 * What the instance documents read of the social context. Named here rather than importing the context: the
 * context names this folder's presenters through its index, and the import would close a cycle.
 */
interface InstanceContext {
  store: SocialStore;
  urls: SocialUrls;
  presenter: AccountPresenter;
  vapidPublicKey: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** The version string clients compare: Mastodon's API level, with our own version as semver build metadata. */
export function instanceVersion(): string {
  return `${MASTODON_COMPAT_VERSION}+homeport.${HOMEPORT_VERSION}`;
}

function contactAccount(ctx: InstanceContext): Account | null {
  const username = ctx.store.settings.owner('contact_username');
  const byName = username ? ctx.store.accounts.byHandle(username, null) : null;
  if (byName && isListed(byName)) return byName;
  const staff = ctx.store.users.staffContact();
  const account = staff ? ctx.store.accounts.byId(staff.accountId) : null;
  return account && isListed(account) ? account : null;
}

function contactEmail(ctx: InstanceContext): string {
  return ctx.store.settings.owner('contact_email') || ctx.store.users.staffContact()?.email || '';
}

/** Users who used the API (or signed in) within the last `days` days. */
export function activeUsers(ctx: InstanceContext, days: number): number {
  const since = ctx.store.now() - days * DAY_MS;
  return ctx.store.instanceStats.activeUsers(since);
}

export function serializeRules(ctx: InstanceContext) {
  return ctx.store.rules.list().map((r) => ({ id: r.id, text: r.text, hint: r.hint, translations: {} }));
}

/** GET /api/v2/instance */
export function serializeInstanceV2(ctx: InstanceContext) {
  const mode = ctx.store.settings.registrationMode();
  const contact = contactAccount(ctx);
  return {
    domain: ctx.urls.domain,
    title: ctx.store.settings.owner('title'),
    version: instanceVersion(),
    source_url: ctx.urls.absolute('/about'),
    description: ctx.store.settings.owner('description'),
    usage: { users: { active_month: activeUsers(ctx, 30) } },
    thumbnail: { url: ctx.urls.missingHeader },
    icon: [],
    languages: ctx.store.settings.languages(),
    configuration: {
      urls: {
        streaming: ctx.urls.streaming,
        status: null,
        about: ctx.urls.absolute('/about'),
        privacy_policy: ctx.urls.absolute('/privacy-policy'),
        terms_of_service: null,
      },
      vapid: { public_key: ctx.vapidPublicKey },
      accounts: LIMITS.accounts,
      statuses: LIMITS.statuses,
      media_attachments: LIMITS.media_attachments,
      polls: LIMITS.polls,
      translation: { enabled: false },
      timelines_access: {
        live_feeds: { local: 'public', remote: 'public' },
        hashtag_feeds: { local: 'public', remote: 'public' },
        trending_link_feeds: { local: 'public', remote: 'public' },
      },
      limited_federation: false,
    },
    registrations: {
      enabled: mode !== 'closed',
      approval_required: mode === 'approval',
      message: mode === 'closed' ? ctx.store.settings.owner('registrations_message') || null : null,
      min_age: null,
      reason_required: false,
      url: null,
    },
    api_versions: { mastodon: MASTODON_API_VERSION },
    contact: { email: contactEmail(ctx), account: contact ? ctx.presenter.one(contact) : null },
    rules: serializeRules(ctx),
  };
}

/** GET /api/v1/instance (deprecated, still read by megalodon) */
export function serializeInstanceV1(ctx: InstanceContext) {
  const mode = ctx.store.settings.registrationMode();
  const contact = contactAccount(ctx);
  const description = ctx.store.settings.owner('description');
  return {
    uri: ctx.urls.domain,
    title: ctx.store.settings.owner('title'),
    short_description: description,
    description,
    email: contactEmail(ctx),
    version: instanceVersion(),
    urls: { streaming_api: ctx.urls.streaming },
    stats: {
      user_count: ctx.store.accounts.localUserCount(),
      status_count: ctx.store.accounts.localStatusCount(),
      domain_count: ctx.store.accounts.knownDomains().length,
    },
    thumbnail: ctx.urls.missingHeader,
    languages: ctx.store.settings.languages(),
    registrations: mode !== 'closed',
    approval_required: mode === 'approval',
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: LIMITS.accounts.max_featured_tags },
      statuses: LIMITS.statuses,
      media_attachments: {
        supported_mime_types: LIMITS.media_attachments.supported_mime_types,
        image_size_limit: LIMITS.media_attachments.image_size_limit,
        image_matrix_limit: LIMITS.media_attachments.image_matrix_limit,
        video_size_limit: LIMITS.media_attachments.video_size_limit,
        video_frame_rate_limit: LIMITS.media_attachments.video_frame_rate_limit,
        video_matrix_limit: LIMITS.media_attachments.video_matrix_limit,
      },
      polls: LIMITS.polls,
    },
    contact_account: contact ? ctx.presenter.one(contact) : null,
    rules: serializeRules(ctx),
  };
}

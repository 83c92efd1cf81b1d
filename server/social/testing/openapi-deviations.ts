import type { OpenApiDocument } from './openapi-document.ts';

/**
 * Where we deliberately differ from the document, each with its reason. Applied to the in-memory copy only.
 */
export const DEVIATIONS: { description: string; apply(doc: OpenApiDocument): void }[] = [
  {
    description:
      'Relationship.blocked_by is left out: our API seed removes it (a blocked user must not learn who blocks them).',
    apply(doc) {
      const rel = doc.components.schemas.Relationship as { required: string[]; properties: Record<string, unknown> };
      rel.required = rel.required.filter((k) => k !== 'blocked_by');
    },
  },
  {
    description:
      'ScheduledStatus.params.in_reply_to_id and application_id are strings: the document says integer (copying a Mastodon quirk), but a 64-bit id does not survive a JSON number.',
    apply(doc) {
      const params = (
        doc.components.schemas.ScheduledStatus as { properties: { params: { properties: Record<string, unknown> } } }
      ).properties.params.properties;
      params.in_reply_to_id = { type: ['string', 'null'] };
      params.application_id = { type: ['string', 'null'] };
    },
  },
  {
    description:
      'ExtendedDescription.updated_at is null when the description was never set: Mastodon serializes `updated_at&.iso8601` (the document says string).',
    apply(doc) {
      const page = doc.components.schemas.ExtendedDescription as { properties: Record<string, unknown> };
      page.properties.updated_at = { type: ['string', 'null'], format: 'date-time' };
    },
  },
  {
    description:
      'Instance contact.email (v2) and email (v1) are "" while no contact address is set and no staff account exists: Mastodon serializes Setting.site_contact_email, whose default is "" (the document says format email).',
    apply(doc) {
      const v2 = doc.components.schemas.Instance as {
        properties: { contact: { properties: Record<string, unknown> } };
      };
      v2.properties.contact.properties.email = {
        anyOf: [
          { type: 'string', format: 'email' },
          { type: 'string', maxLength: 0 },
        ],
      };
      const v1 = doc.components.schemas.V1Instance as { properties: Record<string, unknown> } | undefined;
      if (v1)
        v1.properties.email = {
          anyOf: [
            { type: 'string', format: 'email' },
            { type: 'string', maxLength: 0 },
          ],
        };
    },
  },
  {
    description:
      'GET /api/v1/filters answers an array of V1Filter (Mastodon renders every keyword; its documentation says "Array of V1::Filter"); the document gives a single V1Filter.',
    apply(doc) {
      const op = (
        doc.paths['/api/v1/filters'] as {
          get: { responses: Record<string, { content: Record<string, { schema: unknown }> }> };
        }
      ).get;
      op.responses['200'].content['application/json'].schema = {
        type: 'array',
        items: { $ref: '#/components/schemas/V1Filter' },
      };
    },
  },
  {
    description:
      'NotificationGroup.most_recent_notification_id is a string: the seed says every id in JSON is a string (a 64-bit id does not survive a JSON number); the document says integer.',
    apply(doc) {
      const group = doc.components.schemas.NotificationGroup as { properties: Record<string, unknown> };
      group.properties.most_recent_notification_id = { type: 'string' };
    },
  },
  {
    description:
      'Collections answers are named in the document (WrappedCollection, WrappedCollectionItem, Collections) but have no schema: added as the wrappers masto.js types them ({collection}, {collection_item}, {collections}).',
    apply(doc) {
      const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      doc.components.schemas.WrappedCollection = {
        type: 'object',
        required: ['collection'],
        properties: { collection: ref('Collection') },
      };
      doc.components.schemas.WrappedCollectionItem = {
        type: 'object',
        required: ['collection_item'],
        properties: { collection_item: ref('CollectionItem') },
      };
      doc.components.schemas.Collections = {
        type: 'object',
        required: ['collections'],
        properties: { collections: { type: 'array', items: ref('Collection') } },
      };
    },
  },
  {
    description:
      'Status.quote is oneOf Quote, ShallowQuote and null, but both quote schemas accept any object with a state, so no quote could ever match exactly one: anyOf.',
    apply(doc) {
      const quote = (
        doc.components.schemas.Status as { properties: { quote: { oneOf?: unknown[]; anyOf?: unknown[] } } }
      ).properties.quote;
      quote.anyOf = quote.oneOf;
      delete quote.oneOf;
    },
  },
  {
    description:
      'The v1 notification policy (Mastodon 4.3, deprecated by v2) is left out of the document, though its V1NotificationPolicy entity is in it: its path is added with that entity as the answer.',
    apply(doc) {
      const answer = {
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/V1NotificationPolicy' } } } },
        },
      };
      doc.paths['/api/v1/notifications/policy'] = { get: answer, put: answer };
    },
  },
  {
    description:
      'The admin API is left out of the document, though its Admin* entities are in it: its operations are added with those entities as their answers (as Mastodon’s documentation of the admin API gives them).',
    apply(doc) {
      const one = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      const many = (name: string) => ({ type: 'array', items: one(name) });
      const empty = { type: 'object', maxProperties: 0 };
      const reviewedLink = {
        allOf: [
          one('TrendsLink'),
          {
            type: 'object',
            required: ['id', 'requires_review'],
            properties: { id: { type: 'string' }, requires_review: { type: 'boolean' } },
          },
        ],
      };
      const adminTag = { allOf: [one('Tag'), one('AdminTag')] };
      const reviewedStatus = {
        allOf: [
          one('Status'),
          { type: 'object', required: ['requires_review'], properties: { requires_review: { type: 'boolean' } } },
        ],
      };
      // Admin::Trends::Links::PreviewCardProvider (REST::Admin::Trends::Links::PreviewCardProviderSerializer).
      const publisher = {
        type: 'object',
        required: ['id', 'domain', 'trendable', 'reviewed_at', 'requested_review_at', 'requires_review'],
        properties: {
          id: { type: 'string' },
          domain: { type: 'string' },
          trendable: { type: 'boolean' },
          reviewed_at: { type: ['string', 'null'], format: 'date-time' },
          requested_review_at: { type: ['string', 'null'], format: 'date-time' },
          requires_review: { type: 'boolean' },
        },
      };
      const answers: [string, string, unknown][] = [
        ['get', '/api/v1/admin/accounts', many('AdminAccount')],
        ['get', '/api/v2/admin/accounts', many('AdminAccount')],
        ['get', '/api/v1/admin/accounts/{id}', one('AdminAccount')],
        ['delete', '/api/v1/admin/accounts/{id}', one('AdminAccount')],
        ['post', '/api/v1/admin/accounts/{id}/action', empty],
        ...['approve', 'reject', 'enable', 'unsilence', 'unsuspend', 'unsensitive'].map(
          (a): [string, string, unknown] => ['post', `/api/v1/admin/accounts/{id}/${a}`, one('AdminAccount')],
        ),
        ['get', '/api/v1/admin/domain_blocks', many('AdminDomainBlock')],
        ['post', '/api/v1/admin/domain_blocks', one('AdminDomainBlock')],
        ['get', '/api/v1/admin/domain_blocks/{id}', one('AdminDomainBlock')],
        ['put', '/api/v1/admin/domain_blocks/{id}', one('AdminDomainBlock')],
        ['delete', '/api/v1/admin/domain_blocks/{id}', empty],
        ['get', '/api/v1/admin/domain_allows', many('AdminDomainAllow')],
        ['post', '/api/v1/admin/domain_allows', one('AdminDomainAllow')],
        ['get', '/api/v1/admin/domain_allows/{id}', one('AdminDomainAllow')],
        ['delete', '/api/v1/admin/domain_allows/{id}', empty],
        ['get', '/api/v1/admin/reports', many('AdminReport')],
        ['get', '/api/v1/admin/reports/{id}', one('AdminReport')],
        ['put', '/api/v1/admin/reports/{id}', one('AdminReport')],
        ...['assign_to_self', 'unassign', 'resolve', 'reopen'].map((a): [string, string, unknown] => [
          'post',
          `/api/v1/admin/reports/{id}/${a}`,
          one('AdminReport'),
        ]),
        ['get', '/api/v1/admin/email_domain_blocks', many('AdminEmailDomainBlock')],
        ['post', '/api/v1/admin/email_domain_blocks', one('AdminEmailDomainBlock')],
        ['get', '/api/v1/admin/email_domain_blocks/{id}', one('AdminEmailDomainBlock')],
        ['delete', '/api/v1/admin/email_domain_blocks/{id}', empty],
        ['get', '/api/v1/admin/canonical_email_blocks', many('AdminCanonicalEmailBlock')],
        ['post', '/api/v1/admin/canonical_email_blocks', one('AdminCanonicalEmailBlock')],
        ['post', '/api/v1/admin/canonical_email_blocks/test', many('AdminCanonicalEmailBlock')],
        ['get', '/api/v1/admin/canonical_email_blocks/{id}', one('AdminCanonicalEmailBlock')],
        ['delete', '/api/v1/admin/canonical_email_blocks/{id}', empty],
        ['get', '/api/v1/admin/ip_blocks', many('AdminIpBlock')],
        ['post', '/api/v1/admin/ip_blocks', one('AdminIpBlock')],
        ['get', '/api/v1/admin/ip_blocks/{id}', one('AdminIpBlock')],
        ['put', '/api/v1/admin/ip_blocks/{id}', one('AdminIpBlock')],
        ['delete', '/api/v1/admin/ip_blocks/{id}', empty],
        // Reviewers get Admin::Tag, statuses with requires_review and the publishers; others the public lists.
        ['get', '/api/v1/admin/trends/tags', many('Tag')],
        ['get', '/api/v1/admin/trends/statuses', many('Status')],
        ['get', '/api/v1/admin/trends/links/publishers', { type: 'array', items: publisher }],
        ...['approve', 'reject'].flatMap((a): [string, string, unknown][] => [
          ['post', `/api/v1/admin/trends/tags/{id}/${a}`, adminTag],
          ['post', `/api/v1/admin/trends/statuses/{id}/${a}`, reviewedStatus],
          ['post', `/api/v1/admin/trends/links/publishers/{id}/${a}`, publisher],
        ]),
        ['get', '/api/v1/admin/tags', { type: 'array', items: adminTag }],
        ['get', '/api/v1/admin/tags/{id}', adminTag],
        ['put', '/api/v1/admin/tags/{id}', adminTag],
        ['post', '/api/v1/admin/measures', many('AdminMeasure')],
        ['post', '/api/v1/admin/dimensions', many('AdminDimension')],
        ['post', '/api/v1/admin/retention', many('AdminCohort')],
        // Reviewers get each link with its id and requires_review; anyone else the public TrendsLink list.
        ['get', '/api/v1/admin/trends/links', many('TrendsLink')],
        ...['approve', 'reject'].map((a): [string, string, unknown] => [
          'post',
          `/api/v1/admin/trends/links/{id}/${a}`,
          reviewedLink,
        ]),
      ];
      for (const [method, path, schema] of answers) {
        const ops = (doc.paths[path] ??= {});
        ops[method] = { responses: { '200': { content: { 'application/json': { schema } } } } };
      }
    },
  },
  {
    description:
      'PreviewCard author_url, provider_url and embed_url (also in TrendsLink, the card with its history), and PreviewCardAuthor.url, are "" when the page names none: Mastodon’s preview_cards columns default to "" and are serialized as they are (the document says format uri).',
    apply(doc) {
      const uriOrEmpty = {
        anyOf: [
          { type: 'string', format: 'uri' },
          { type: 'string', maxLength: 0 },
        ],
      };
      for (const name of ['PreviewCard', 'TrendsLink']) {
        const card = doc.components.schemas[name] as { properties: Record<string, unknown> };
        for (const key of ['author_url', 'provider_url', 'embed_url']) card.properties[key] = uriOrEmpty;
      }
      (doc.components.schemas.PreviewCardAuthor as { properties: Record<string, unknown> }).properties.url = uriOrEmpty;
    },
  },
  {
    description:
      'Annual reports answer WrappedAnnualReports and a {state} hash, named in the document without a schema: added, the wrapper from the AnnualReport, Account and Status entities; generate and read answer {}. AnnualReport data.percentiles is {followers, statuses} (Mastodon’s AnnualReport::Percentiles), not the Float the document says.',
    apply(doc) {
      const report = doc.components.schemas.AnnualReport as {
        properties: { data: { properties: Record<string, unknown> } };
      };
      report.properties.data.properties.percentiles = {
        type: 'object',
        properties: { followers: { type: 'number' }, statuses: { type: 'number' } },
      };
      const one = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      const many = (name: string) => ({ type: 'array', items: one(name) });
      const wrapped = {
        type: 'object',
        required: ['annual_reports', 'accounts', 'statuses'],
        properties: { annual_reports: many('AnnualReport'), accounts: many('Account'), statuses: many('Status') },
      };
      const state = {
        type: 'object',
        required: ['state'],
        properties: { state: { type: 'string', enum: ['available', 'generating', 'eligible', 'ineligible'] } },
      };
      const empty = { type: 'object', maxProperties: 0 };
      const answers: [string, string, unknown][] = [
        ['get', '/api/v1/annual_reports', wrapped],
        ['get', '/api/v1/annual_reports/{year}', wrapped],
        ['get', '/api/v1/annual_reports/{year}/state', state],
        ['post', '/api/v1/annual_reports/{year}/generate', empty],
        ['post', '/api/v1/annual_reports/{year}/read', empty],
      ];
      for (const [method, path, schema] of answers) {
        const op = (doc.paths[path] ??= {})[method] ?? {};
        op.responses = { ...op.responses, '200': { content: { 'application/json': { schema } } } };
        doc.paths[path][method] = op;
      }
    },
  },
];

import { describe, expect, it } from 'vitest';
import { DEVIATIONS, findResponseSchema, OpenApiRecorder, OpenApiViolation, validateResponse } from './openapi.ts';

describe('OpenAPI response validation', () => {
  it('finds schemas, preferring static paths over templated ones', () => {
    expect(findResponseSchema('GET', '/api/v1/accounts/lookup', 200)).toMatchObject({
      template: '/api/v1/accounts/lookup',
    });
    expect(findResponseSchema('GET', '/api/v1/accounts/123', 200)).toMatchObject({ template: '/api/v1/accounts/{id}' });
    expect(findResponseSchema('GET', '/api/v1/accounts/123', 418)).toMatchObject({
      pointer: 'mastodon-openapi#/components/schemas/Error',
    });
    expect(findResponseSchema('GET', '/nodeinfo/2.0', 200)).toEqual({
      missing: 'path /nodeinfo/2.0 is not in the OpenAPI document',
    });
    expect(findResponseSchema('GET', '/nodeinfo/2.0', 404)).toMatchObject({
      pointer: 'mastodon-openapi#/components/schemas/Error',
    });
    expect(findResponseSchema('POST', '/api/v1/follows', 200)).toMatchObject({
      pointer: 'mastodon-openapi#/components/schemas/Account',
    });
  });

  it('rejects bodies that do not match and accepts ones that do', () => {
    expect(() => validateResponse('GET', '/api/v1/instance/rules', 200, [{ id: 1, text: 'x' }])).toThrow(
      OpenApiViolation,
    );
    expect(validateResponse('GET', '/api/v1/instance/rules', 200, [{ id: '1', text: 'x', hint: '' }])).toEqual({
      checked: true,
      template: '/api/v1/instance/rules',
    });
    expect(() => validateResponse('GET', '/api/v1/blocks', 403, { message: 'no error key' })).toThrow(OpenApiViolation);
  });

  it('documents every deviation it applies', () => {
    expect(DEVIATIONS.map((d) => d.description)).toEqual([
      expect.stringContaining('blocked_by'),
      expect.stringContaining('ScheduledStatus.params.in_reply_to_id'),
      expect.stringContaining('ExtendedDescription.updated_at'),
      expect.stringContaining('Instance contact.email'),
      expect.stringContaining('GET /api/v1/filters'),
      expect.stringContaining('NotificationGroup.most_recent_notification_id'),
      expect.stringContaining('WrappedCollection'),
      expect.stringContaining('Status.quote'),
      expect.stringContaining('v1 notification policy'),
      expect.stringContaining('admin API'),
      expect.stringContaining('PreviewCard author_url'),
      expect.stringContaining('WrappedAnnualReports'),
    ]);
    expect(
      validateResponse('GET', '/api/v1/instance/extended_description', 200, { updated_at: null, content: '' }).checked,
    ).toBe(true);
    const scheduled = {
      id: '1',
      scheduled_at: '2030-01-01T00:00:00.000Z',
      media_attachments: [],
      params: {
        text: 'x',
        visibility: 'public',
        with_rate_limit: false,
        application_id: '9',
        in_reply_to_id: '123456789012345678',
      },
    };
    expect(validateResponse('GET', '/api/v1/scheduled_statuses/1', 200, scheduled).checked).toBe(true);
    const relationship = {
      id: '1',
      following: false,
      showing_reblogs: false,
      notifying: false,
      followed_by: false,
      blocking: false,
      muting: false,
      muting_notifications: false,
      requested: false,
      requested_by: false,
      domain_blocking: false,
      endorsed: false,
      note: '',
    };
    expect(validateResponse('GET', '/api/v1/accounts/relationships', 200, [relationship]).checked).toBe(true);
  });

  it('lists responses without a schema, and tells the known ones from new ones', () => {
    const recorder = new OpenApiRecorder();
    recorder.record('POST', 'http://x/api/v1/notifications/clear', 200, {});
    recorder.record('GET', 'http://x/api/v9/made-up', 200, {});
    expect(recorder.unexpectedUnchecked()).toEqual([
      expect.stringMatching(/^GET \/api\/v9\/made-up 200 \(.*not in the OpenAPI document\)$/),
    ]);
  });
});

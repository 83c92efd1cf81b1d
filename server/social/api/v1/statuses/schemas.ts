import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DetailsCollector, ValidationFailure } from '../../../errors.ts';
import { zBool, zFile, zId, zInt, zList, zString } from '../../../http/index.ts';
import { QUOTE_POLICIES, VISIBILITIES } from '../../../store/index.ts';
import {
  type EditInput,
  type MediaAttributeInput,
  type PollInput,
  type PostInput,
  parseFocus,
} from '../../../domain/index.ts';

/** Empty strings (forms send them for unset fields) and nulls count as absent. */
const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema.optional());

const pollSchema = z.object({
  options: zList(zString, 20),
  expires_in: zInt,
  multiple: optional(zBool),
  hide_totals: optional(zBool),
});

const common = {
  status: optional(zString),
  spoiler_text: optional(zString),
  sensitive: optional(zBool),
  language: optional(zString),
  media_ids: optional(zList(zId, 20)),
  poll: z.preprocess(blank, pollSchema.optional()),
  quote_approval_policy: optional(z.enum(QUOTE_POLICIES)),
};

export const postSchema = z.object({
  ...common,
  visibility: optional(z.enum(VISIBILITIES)),
  in_reply_to_id: optional(zId),
  scheduled_at: optional(zString),
  allowed_mentions: optional(zList(zId, 100)),
  quoted_status_id: optional(zId),
});

export const editSchema = z.object({
  ...common,
  media_attributes: optional(
    zList(
      z.object({
        id: zId,
        description: z.preprocess((v) => (v === null ? null : v), zString.nullable().optional()),
        focus: z.preprocess((v) => (v === null ? null : v), zString.nullable().optional()),
        thumbnail: z.union([zFile, zString]).optional(),
      }),
      20,
    ),
  ),
});

function pollInput(poll: z.output<typeof pollSchema> | undefined): PollInput | undefined {
  return poll
    ? { options: poll.options, expiresIn: poll.expires_in, multiple: poll.multiple, hideTotals: poll.hide_totals }
    : undefined;
}

/** scheduled_at: any date Date.parse reads (clients send ISO 8601). */
function parseSchedule(value: string | undefined): number | null {
  if (value === undefined) return null;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw ValidationFailure.single('scheduled_at', 'ERR_INVALID', 'is not a valid date and time');
  return t;
}

export function postInput(p: z.output<typeof postSchema>, req: FastifyRequest): PostInput {
  const key = req.headers['idempotency-key'];
  return {
    text: p.status ?? '',
    spoilerText: p.spoiler_text,
    sensitive: p.sensitive,
    visibility: p.visibility,
    language: p.language,
    inReplyToId: p.in_reply_to_id ?? null,
    mediaIds: p.media_ids,
    poll: pollInput(p.poll) ?? null,
    quoteApprovalPolicy: p.quote_approval_policy ?? null,
    quotedStatusId: p.quoted_status_id ?? null,
    scheduledAt: parseSchedule(p.scheduled_at),
    idempotencyKey: typeof key === 'string' && key.trim() ? key.trim().slice(0, 255) : null,
    allowedMentions: p.allowed_mentions ?? null,
  };
}

export function editInput(p: z.output<typeof editSchema>): EditInput {
  const details = new DetailsCollector();
  const mediaAttributes: MediaAttributeInput[] = (p.media_attributes ?? []).map((a) => ({
    id: a.id,
    description: a.description,
    focus: a.focus === undefined ? undefined : (parseFocus(a.focus, details) ?? null),
  }));
  details.throwIfAny();
  return {
    text: p.status ?? '',
    spoilerText: p.spoiler_text,
    sensitive: p.sensitive,
    language: p.language,
    mediaIds: p.media_ids,
    mediaAttributes,
    poll: pollInput(p.poll) ?? null,
    quoteApprovalPolicy: p.quote_approval_policy ?? null,
  };
}

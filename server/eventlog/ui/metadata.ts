import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ExpectedVersion } from '../store/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { errorForResult, sendError, UiApiError } from './ui-errors.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

export const METADATA_EVENT_TYPE = '$metadata';
const ACL_KEYS = ['$r', '$w', '$d', '$mr', '$mw'] as const;
const NUMBER_KEYS = ['$maxCount', '$maxAge', '$tb', '$cacheControl'] as const;

export function metastreamOf(streamId: string): string {
  return `$$${streamId}`;
}

/**
 * Checks a metadata document the way EventStoreDB reads one: the reserved `$` keys must have the right
 * shape (a bad `$maxCount` would otherwise silently mean "no limit"); any other key is the owner's own.
 */
export function validateMetadata(doc: unknown): Record<string, unknown> {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new UiApiError(400, 'Stream metadata is a JSON object');
  const m = doc as Record<string, unknown>;
  for (const key of NUMBER_KEYS) {
    const v = m[key];
    if (v === undefined || v === null) continue;
    const min = key === '$maxCount' || key === '$maxAge' ? 1 : 0;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min)
      throw new UiApiError(400, `${key} must be a whole number ≥ ${min}`);
  }
  const acl = m.$acl;
  if (acl !== undefined && acl !== null) {
    if (typeof acl !== 'object' || Array.isArray(acl))
      throw new UiApiError(400, '$acl is an object with $r, $w, $d, $mr and $mw');
    for (const [k, v] of Object.entries(acl as Record<string, unknown>)) {
      if (!(ACL_KEYS as readonly string[]).includes(k))
        throw new UiApiError(400, `$acl has an unknown key "${k}" (use $r, $w, $d, $mr, $mw)`);
      const ok = typeof v === 'string' || (Array.isArray(v) && v.every((r) => typeof r === 'string'));
      if (!ok) throw new UiApiError(400, `$acl.${k} is a role name or a list of role names`);
    }
  }
  return m;
}

/** A stream's metadata (`$$stream`): the document as written, the limits the store applies, and its version for safe edits. */
export function metadataRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };

  app.get<{ Params: { stream: string } }>('/eventlog/streams/:stream/metadata', auth, async (req, reply) => {
    const stream = req.params.stream;
    try {
      const read = deps.store.readStreamBackward(metastreamOf(stream), -1, 1, false, callerOf(req, deps));
      if (read.result === 'NoStream' || (read.result === 'Success' && read.events.length === 0)) {
        return {
          streamId: stream,
          metadata: null,
          version: read.result === 'Success' ? read.lastEventNumber : ExpectedVersion.NoStream,
          effective: deps.store.getStreamMetadata(stream),
        };
      }
      const error = errorForResult(read.result, metastreamOf(stream), read.error);
      if (error) throw error;
      const rec = read.events[0].event ?? read.events[0].link!;
      let metadata: unknown = null;
      let invalid: string | undefined;
      try {
        metadata = JSON.parse(Buffer.from(rec.data).toString('utf8'));
      } catch (err) {
        invalid = `The stored metadata is not JSON: ${(err as Error).message}`;
      }
      const effective = deps.store.getStreamMetadata(stream);
      return { streamId: stream, metadata, invalid, version: rec.eventNumber, effective };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.put<{ Params: { stream: string }; Body: { metadata: unknown; expectedVersion?: number } }>(
    '/eventlog/streams/:stream/metadata',
    {
      ...auth,
      schema: {
        body: {
          type: 'object',
          required: ['metadata'],
          properties: { metadata: {}, expectedVersion: { type: 'integer', minimum: ExpectedVersion.StreamExists } },
        },
      },
    },
    async (req, reply) => {
      const stream = req.params.stream;
      try {
        if (stream === '$all' || stream.startsWith('$$'))
          throw new UiApiError(400, `"${stream}" has no metadata stream of its own`);
        const doc = validateMetadata(req.body.metadata);
        const result = await deps.store.appendToStream(
          metastreamOf(stream),
          req.body.expectedVersion ?? ExpectedVersion.Any,
          [
            {
              eventId: crypto.randomUUID(),
              eventType: METADATA_EVENT_TYPE,
              isJson: true,
              data: Buffer.from(JSON.stringify(doc), 'utf8'),
              metadata: new Uint8Array(),
            },
          ],
          callerOf(req, deps),
        );
        const error = errorForResult(
          result.result,
          stream,
          result.result === 'WrongExpectedVersion'
            ? 'Someone changed this metadata since you opened it; reload to see their version'
            : result.message,
        );
        if (error) throw error;
        return {
          streamId: stream,
          metadata: doc,
          version: result.lastEventNumber,
          effective: deps.store.getStreamMetadata(stream),
        };
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}

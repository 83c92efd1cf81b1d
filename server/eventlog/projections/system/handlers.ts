/**
 * The five standard projections as EventStoreDB runs them: each looks at one `$all` event at a time and
 * says which links (or stream references) to write. Their output, event by event, is EventStoreDB's:
 * the same target streams, event types, data (`N@stream`) and metadata keys.
 */
import { SystemEventTypes, type RecordedEvent } from '../../store/index.ts';
import { categoryExtractor } from '../category.ts';
import type { CheckpointTag } from '../checkpoint-tag.ts';
import { eventNumberText, type EmittedEvent } from '../emitted.ts';
import { ProjectionEventTypes, SystemProjectionNames, type SystemProjectionName } from '../names.ts';
import { correlationIdOf, decodeText, deletionOf, metadataProperty } from '../source-event.ts';

export interface SystemHandler {
  /** `$>` events of user streams reach the handler (SetIncludeLinks). */
  readonly includeLinks: boolean;
  process(event: RecordedEvent, tag: CheckpointTag): EmittedEvent[];
  /** Events written with each checkpoint (`$by_event_type`'s `$Checkpoint` into `$et`). */
  onCheckpoint?(tag: CheckpointTag): EmittedEvent[];
}

/** The handler types EventStoreDB records in the definitions of the standard projections. */
export const SYSTEM_HANDLER_TYPES: Record<SystemProjectionName, string> = {
  [SystemProjectionNames.Streams]: 'native:KurrentDB.Projections.Core.Standard.IndexStreams',
  [SystemProjectionNames.StreamByCategory]: 'native:KurrentDB.Projections.Core.Standard.CategorizeStreamByPath',
  [SystemProjectionNames.ByCategory]: 'native:KurrentDB.Projections.Core.Standard.CategorizeEventsByStreamPath',
  [SystemProjectionNames.ByEventType]: 'native:KurrentDB.Projections.Core.Standard.IndexEventsByEventType',
  [SystemProjectionNames.ByCorrelationId]: 'native:KurrentDB.Projections.Core.Standard.ByCorrelationId',
};

export const SYSTEM_DEFAULT_QUERIES: Record<SystemProjectionName, string> = {
  [SystemProjectionNames.Streams]: '',
  [SystemProjectionNames.StreamByCategory]: 'first\r\n-',
  [SystemProjectionNames.ByCategory]: 'first\r\n-',
  [SystemProjectionNames.ByEventType]: '',
  [SystemProjectionNames.ByCorrelationId]: '{"correlationIdProperty":"$correlationId"}',
};

/** Builds a standard projection's handler from its query; throws (the projection faults) on a bad query. */
export function systemHandler(name: SystemProjectionName, query: string): SystemHandler {
  switch (name) {
    case SystemProjectionNames.Streams:
      requireEmpty(query, 'Cannot initialize categorize stream projection handler.  No source is allowed.');
      return indexStreams();
    case SystemProjectionNames.StreamByCategory:
      return categorizeStreams(query);
    case SystemProjectionNames.ByCategory:
      return categorizeEvents(query);
    case SystemProjectionNames.ByEventType:
      requireEmpty(query, 'Empty source expected');
      return indexEventTypes();
    case SystemProjectionNames.ByCorrelationId:
      return byCorrelationId(query);
  }
}

function requireEmpty(query: string, message: string): void {
  if (query.trim() !== '') throw new Error(message);
}

function link(
  event: RecordedEvent,
  tag: CheckpointTag,
  streamId: string,
  data: string,
  extra?: Record<string, unknown>,
) {
  return {
    streamId,
    eventType: SystemEventTypes.LinkTo,
    isJson: false,
    data,
    ...(extra ? { extra } : {}),
    causedBy: event.eventId,
    correlationId: correlationIdOf(event.metadata),
    tag,
  } satisfies EmittedEvent;
}

const numberAt = (event: RecordedEvent) => `${eventNumberText(event.eventNumber)}@${event.streamId}`;

function indexStreams(): SystemHandler {
  return {
    includeLinks: true,
    process: (event, tag) => (event.eventNumber === 0 ? [link(event, tag, '$streams', numberAt(event))] : []),
  };
}

function categorizeStreams(query: string): SystemHandler {
  const categoryOf = categoryExtractor(query);
  return {
    includeLinks: true,
    process(event, tag) {
      if (event.eventNumber !== 0) return [];
      const category = categoryOf(event.streamId);
      if (category === null) return [];
      return [
        {
          ...link(event, tag, `$category-${category}`, event.streamId),
          eventType: ProjectionEventTypes.StreamReference,
        },
      ];
    },
  };
}

function categorizeEvents(query: string): SystemHandler {
  const categoryOf = categoryExtractor(query);
  return {
    includeLinks: true,
    process(event, tag) {
      const deletion = deletionOf(event);
      const original = deletion.deleted ? deletion.streamId : event.streamId;
      const category = categoryOf(original);
      if (category === null) return [];
      // A link found in a user stream is followed to what it names, so `$ce-` points at the original.
      const target = event.eventType === SystemEventTypes.LinkTo ? decodeText(event.data) : numberAt(event);
      return [
        link(event, tag, `$ce-${category}`, target, { $o: original, ...(deletion.deleted ? { $deleted: -1 } : {}) }),
      ];
    },
  };
}

function indexEventTypes(): SystemHandler {
  return {
    includeLinks: false,
    process(event, tag) {
      if (event.eventType === SystemEventTypes.LinkTo) return [];
      // As EventStoreDB: a `$$x` event points at `x` (even though the event is in `$$x`).
      const deletion = deletionOf(event);
      const type = deletion.deleted ? '$deleted' : event.eventType;
      const data = `${eventNumberText(event.eventNumber)}@${deletion.streamId}`;
      return [link(event, tag, `$et-${type}`, data, deletion.deleted ? { $deleted: -1 } : undefined)];
    },
    onCheckpoint: (tag) => [
      {
        streamId: '$et',
        eventType: ProjectionEventTypes.PartitionCheckpoint,
        isJson: true,
        data: JSON.stringify(tag.kind === 'position' ? { $c: tag.commitPosition, $p: tag.preparePosition } : {}),
        tag,
      },
    ],
  };
}

/** `yyyy-MM-ddTHH:mm:ss.ffffffZ` of a Unix-milliseconds time. */
function microsecondTimestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}

function byCorrelationId(query: string): SystemHandler {
  let property = '$correlationId';
  if (query.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(query);
    } catch {
      parsed = null;
    }
    const value = (parsed as { correlationIdProperty?: unknown } | null)?.correlationIdProperty;
    if (typeof value !== 'string')
      throw new Error(
        "Could not parse projection source. Please make sure the source is a valid JSON string with a property: 'correlationIdProperty' having a string value",
      );
    property = value;
  }
  return {
    includeLinks: false,
    process(event, tag) {
      const value = metadataProperty(event.metadata, property);
      // Newtonsoft's Value<string>() turns numbers into their text; objects and arrays are no id.
      const correlationId = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
      if (correlationId === null) return [];
      return [
        link(event, tag, `$bc-${correlationId}`, numberAt(event), {
          $eventTimestamp: microsecondTimestamp(event.created),
        }),
      ];
    },
  };
}

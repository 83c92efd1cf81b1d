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
import { decodeText, deletionOf, type SharedSourceEvent } from '../source-event.ts';

export interface SystemHandler {
  /** `$>` events of user streams reach the handler (SetIncludeLinks). */
  readonly includeLinks: boolean;
  /** The links for one event; pushed onto `out` (one array per page, not one per event). */
  process(source: SharedSourceEvent, tag: CheckpointTag, out: EmittedEvent[]): void;
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
  source: SharedSourceEvent,
  tag: CheckpointTag,
  streamId: string,
  data: string,
  extra?: Record<string, unknown>,
  eventType: string = SystemEventTypes.LinkTo,
): EmittedEvent {
  return {
    streamId,
    eventType,
    isJson: false,
    data,
    extra,
    causedBy: source.event.eventId,
    correlationId: source.correlationId,
    tag,
  };
}

const numberAt = (event: RecordedEvent) => `${eventNumberText(event.eventNumber)}@${event.streamId}`;

function indexStreams(): SystemHandler {
  return {
    includeLinks: true,
    process(source, tag, out) {
      if (source.event.eventNumber === 0) out.push(link(source, tag, '$streams', numberAt(source.event)));
    },
  };
}

function categorizeStreams(query: string): SystemHandler {
  const categoryOf = categoryExtractor(query);
  return {
    includeLinks: true,
    process(source, tag, out) {
      const { event } = source;
      if (event.eventNumber !== 0) return;
      const category = categoryOf(event.streamId);
      if (category === null) return;
      out.push(
        link(source, tag, `$category-${category}`, event.streamId, undefined, ProjectionEventTypes.StreamReference),
      );
    },
  };
}

function categorizeEvents(query: string): SystemHandler {
  const categoryOf = categoryExtractor(query);
  return {
    includeLinks: true,
    process(source, tag, out) {
      const { event } = source;
      const deletion = deletionOf(event);
      const original = deletion.deleted ? deletion.streamId : event.streamId;
      const category = categoryOf(original);
      if (category === null) return;
      // A link found in a user stream is followed to what it names, so `$ce-` points at the original.
      const target = event.eventType === SystemEventTypes.LinkTo ? decodeText(event.data) : numberAt(event);
      const extra = deletion.deleted ? { $o: original, $deleted: -1 } : { $o: original };
      out.push(link(source, tag, `$ce-${category}`, target, extra));
    },
  };
}

function indexEventTypes(): SystemHandler {
  return {
    includeLinks: false,
    process(source, tag, out) {
      const { event } = source;
      if (event.eventType === SystemEventTypes.LinkTo) return;
      // As EventStoreDB: a `$$x` event points at `x` (even though the event is in `$$x`).
      const deletion = deletionOf(event);
      const type = deletion.deleted ? '$deleted' : event.eventType;
      const data = `${eventNumberText(event.eventNumber)}@${deletion.streamId}`;
      out.push(link(source, tag, `$et-${type}`, data, deletion.deleted ? { $deleted: -1 } : undefined));
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
    process(source, tag, out) {
      const value = source.metadataProperty(property);
      // Newtonsoft's Value<string>() turns numbers into their text; objects and arrays are no id.
      const correlationId = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
      if (correlationId === null) return;
      const { event } = source;
      out.push(
        link(source, tag, `$bc-${correlationId}`, numberAt(event), {
          $eventTimestamp: microsecondTimestamp(event.created),
        }),
      );
    },
  };
}

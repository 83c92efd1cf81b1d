/**
 * Where projections are recorded, in the event log itself as EventStoreDB does: `$projections-$all`
 * registers names (the id of a projection is the event number of its `$ProjectionCreated`), and
 * `$projections-<name>` holds one `$ProjectionUpdated` definition per change (its version).
 */
import { SYSTEM_CALLER, type SystemWriter, ExpectedVersion, type EventStore } from '../store/index.ts';
import { definitionJson, parseDefinition, type ProjectionDefinition } from './definition.ts';
import { ProjectionEventTypes, ProjectionStreams } from './names.ts';
import { newEvent, ProjectionWriteError } from './output-writer.ts';
import { decodeText } from './source-event.ts';

export interface RegisteredProjection {
  name: string;
  id: number;
  definition: ProjectionDefinition;
}

export interface RegistryContents {
  initialized: boolean;
  projections: RegisteredProjection[];
}

/** Reads the registry and each projection's last definition (deleted ones left out). */
export function readRegistry(store: EventStore): RegistryContents {
  const ids = new Map<string, number>();
  let initialized = false;
  let from = 0;
  for (;;) {
    const page = store.readStreamForward(ProjectionStreams.Registry, from, 1000, false, SYSTEM_CALLER);
    if (page.result !== 'Success') break;
    for (const { event } of page.events) {
      if (!event) continue;
      const name = decodeText(event.data);
      if (event.eventType === ProjectionEventTypes.Initialized) initialized = true;
      else if (event.eventType === ProjectionEventTypes.Created) ids.set(name, event.eventNumber);
      else if (event.eventType === ProjectionEventTypes.Deleted) ids.delete(name);
    }
    if (page.isEndOfStream) break;
    from = page.nextEventNumber;
  }
  const projections: RegisteredProjection[] = [];
  for (const [name, id] of ids) {
    const definition = readDefinition(store, name);
    if (definition && !definition.deleted) projections.push({ name, id, definition });
  }
  return { initialized, projections };
}

export function readDefinition(store: EventStore, name: string): ProjectionDefinition | null {
  const last = store.readStreamBackward(ProjectionStreams.definition(name), -1, 1, false, SYSTEM_CALLER);
  const event = last.result === 'Success' ? last.events[0]?.event : undefined;
  if (!event) return null;
  const definition = parseDefinition(decodeText(event.data));
  return definition ? { ...definition, version: event.eventNumber } : null;
}

function appendOrThrow(w: SystemWriter, streamId: string, expected: number, events: ReturnType<typeof newEvent>[]) {
  const r = w.append(streamId, expected, events);
  if (r.result !== 'Success') throw new ProjectionWriteError(`Writing ${streamId} failed: ${r.result}`);
  return r;
}

/** Inside a system write: registers the names (and `$ProjectionsInitialized` first when asked). */
export function registerProjections(w: SystemWriter, names: string[], initialize: boolean): number[] {
  const events = [
    ...(initialize ? [newEvent(ProjectionEventTypes.Initialized, false, '', null)] : []),
    ...names.map((n) => newEvent(ProjectionEventTypes.Created, false, n, null)),
  ];
  if (events.length === 0) return [];
  const r = appendOrThrow(w, ProjectionStreams.Registry, ExpectedVersion.Any, events);
  const first = r.lastEventNumber - names.length + 1;
  return names.map((_, i) => first + i);
}

export function unregisterProjection(w: SystemWriter, name: string): void {
  appendOrThrow(w, ProjectionStreams.Registry, ExpectedVersion.Any, [
    newEvent(ProjectionEventTypes.Deleted, false, name, null),
  ]);
}

/** Inside a system write: appends a definition; its version is the event number it gets. */
export function writeDefinition(w: SystemWriter, name: string, definition: ProjectionDefinition): ProjectionDefinition {
  const streamId = ProjectionStreams.definition(name);
  const version = w.streamInfo(streamId).lastEventNumber + 1;
  const stored = { ...definition, version };
  appendOrThrow(w, streamId, version - 1, [newEvent(ProjectionEventTypes.Updated, true, definitionJson(stored), null)]);
  return stored;
}

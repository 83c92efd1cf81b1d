/** What deleting a projection removes, as EventStoreDB does: its checkpoint stream and, when it tracked them, its emitted streams. */
import { SYSTEM_CALLER, type SystemWriter, ExpectedVersion, type EventStore } from '../store/index.ts';
import { ProjectionStreams } from './names.ts';
import { decodeText } from './source-event.ts';

export function deleteProjectionStreams(
  w: SystemWriter,
  store: EventStore,
  name: string,
  flags: { deleteCheckpointStream?: boolean; deleteEmittedStreams?: boolean },
  trackedEmittedStreams: boolean,
): void {
  const softDelete = (streamId: string) => {
    if (w.streamInfo(streamId).lastEventNumber >= 0) w.deleteStream(streamId, ExpectedVersion.Any, false);
  };
  if (flags.deleteCheckpointStream) {
    softDelete(ProjectionStreams.checkpoint(name));
    const catalog = store.readStreamForward(ProjectionStreams.partitions(name), 0, 4096, false, SYSTEM_CALLER);
    for (const { event } of catalog.events)
      if (event) softDelete(ProjectionStreams.partitionCheckpoint(name, decodeText(event.data)));
  }
  // Without tracking, EventStoreDB does not know the emitted streams and leaves them.
  if (flags.deleteEmittedStreams && trackedEmittedStreams) {
    const tracked = store.readStreamForward(ProjectionStreams.emittedStreams(name), 0, 4096, false, SYSTEM_CALLER);
    for (const { event } of tracked.events) if (event) softDelete(decodeText(event.data));
    softDelete(ProjectionStreams.emittedStreams(name));
  }
}

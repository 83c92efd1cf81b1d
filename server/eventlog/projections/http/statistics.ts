/** A projection's statistics as EventStoreDB's HTTP API shows them (`ProjectionStatisticsHttpFormatted`). */
import { tagDisplay } from '../checkpoint-tag.ts';
import type { ProjectionEntry } from '../commands.ts';

/** `<State>[ (Enabled)]`: the suffix for a stopped or faulted projection still enabled, as EventStoreDB writes it. */
export function statusText(p: ProjectionEntry): string {
  const status = p.progress.status;
  if ((status === 'Stopped' || status === 'Faulted') && p.definition.enabled) return `${status} (Enabled)`;
  return status;
}

function progressPercent(p: ProjectionEntry): number {
  const position = p.progress.position;
  if (p.progress.status === 'Completed') return 100;
  if (!position) return p.progress.status === 'Running' ? 0 : -2;
  if (position.kind !== 'position') return 100;
  const head = Math.max(p.progress.headPosition, 1);
  return Math.min(100, Math.round((position.commitPosition / head) * 1000) / 10);
}

export function projectionStatistics(p: ProjectionEntry, base: string) {
  const url = `${base}/projection/${p.name}`;
  return {
    coreProcessingTime: 0,
    version: p.definition.version,
    epoch: p.definition.epoch,
    effectiveName: p.name,
    writesInProgress: 0,
    readsInProgress: 0,
    partitionsCached: p.partitionsCached,
    status: statusText(p),
    stateReason: p.progress.status === 'Faulted' ? p.progress.stateReason : '',
    name: p.name,
    mode: p.definition.mode,
    position: tagDisplay(p.progress.position),
    progress: progressPercent(p),
    lastCheckpoint: tagDisplay(p.progress.lastCheckpoint),
    eventsProcessedAfterRestart: p.progress.eventsProcessedAfterRestart,
    statusUrl: url,
    stateUrl: `${url}/state`,
    resultUrl: `${url}/result`,
    queryUrl: `${url}/query?config=yes`,
    ...(p.definition.handlerType === 'JS'
      ? { resultStreamUrl: `${base}/streams/${encodeURIComponent(`$projections-${p.name}-result`)}` }
      : {}),
    enableCommandUrl: `${url}/command/enable`,
    disableCommandUrl: `${url}/command/disable`,
    checkpointStatus: '',
    bufferedEvents: 0,
    writePendingEventsBeforeCheckpoint: 0,
    writePendingEventsAfterCheckpoint: 0,
  };
}

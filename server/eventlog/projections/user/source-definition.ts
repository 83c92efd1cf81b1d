/** The source definition a query declares (what `__hp.definition()` returns), as EventStoreDB's `sourceDefinition`. */
export interface SourceDefinition {
  allStreams: boolean;
  streams: string[];
  categories: string[];
  allEvents: boolean;
  events: string[];
  byStream: boolean;
  byCustomPartitions: boolean;
  options: {
    includeLinks: boolean;
    reorderEvents: boolean;
    processingLag: number;
    resultStreamName: string | null;
    partitionResultStreamNamePattern: string | null;
    isBiState: boolean;
    definesStateTransform: boolean;
    producesResults: boolean;
    definesFold: boolean;
    handlesDeletedNotifications: boolean;
  };
}

/** The streams a stream-based query reads (`fromCategory('x')` reads `$ce-x`). */
export function sourceStreams(def: SourceDefinition): string[] {
  return [...def.streams, ...def.categories.map((c) => `$ce-${c}`)];
}

/**
 * The stored list of persistent subscription definitions: one JSON document, rewritten whole on every
 * change, in the stream where EventStoreDB keeps it (Homeport does the same).
 */
import { randomUUID } from 'node:crypto';
import { ExpectedVersion, type Caller } from '../../store/index.ts';
import { utf8, utf8Decoder, type GroupContext } from './group-streams.ts';
import type { StoredGroupEntry } from './settings.ts';

const CONFIG_STREAM = '$persistentSubscriptionConfig';
const CONFIG_EVENT_TYPE = '$PersistentConfig';

interface StoredConfig {
  version: string;
  updated: string;
  updatedBy: string;
  entries: StoredGroupEntry[];
}

/** The latest stored definitions; none when the document is missing or unreadable (logged). */
export function loadDefinitions(ctx: GroupContext): StoredGroupEntry[] {
  const result = ctx.store.readStreamBackward(CONFIG_STREAM, -1, 1, false, ctx.system);
  if (result.result !== 'Success' || result.events.length === 0 || !result.events[0].event) return [];
  try {
    const doc = JSON.parse(utf8Decoder.decode(result.events[0].event.data)) as Partial<StoredConfig>;
    if (!Array.isArray(doc.entries)) throw new Error('no entries');
    return doc.entries.filter(
      (e): e is StoredGroupEntry => typeof e?.stream === 'string' && typeof e?.group === 'string',
    );
  } catch (err) {
    ctx.logger.error({ err }, `unreadable ${CONFIG_STREAM}; persistent subscriptions not loaded`);
    return [];
  }
}

/** Durably stores the whole definition list; returns an error text on failure. */
export async function saveDefinitions(
  ctx: GroupContext,
  entries: StoredGroupEntry[],
  caller: Caller,
): Promise<string | null> {
  const doc: StoredConfig = {
    version: '2',
    updated: new Date(ctx.clock.now()).toISOString(),
    updatedBy: caller?.name ?? '$system',
    entries,
  };
  try {
    const result = await ctx.store.appendToStream(
      CONFIG_STREAM,
      ExpectedVersion.Any,
      [
        {
          eventId: randomUUID(),
          eventType: CONFIG_EVENT_TYPE,
          isJson: true,
          data: utf8.encode(JSON.stringify(doc)),
          metadata: new Uint8Array(0),
        },
      ],
      ctx.system,
    );
    return result.result === 'Success' ? null : `Could not store the subscription definition: ${result.result}.`;
  } catch (err) {
    ctx.logger.error({ err }, 'could not store persistent subscription definitions');
    return `Could not store the subscription definition: ${(err as Error).message}`;
  }
}

import { SystemEventTypes } from './metadata.ts';

/** The event type of a link (EventStoreDB's `$>`): its data names another event as `N@stream`. */
export const LINK_EVENT_TYPE = SystemEventTypes.LinkTo;

/**
 * A `$>` record's data, read as EventStoreDB reads it: `N@stream` names an event; data without an `@` or
 * whose number part is not an integer is no link at all (the record is an ordinary event); an empty stream
 * or an impossible number is a broken link (it resolves to nothing).
 */
export type ParsedLink =
  | { kind: 'link'; streamId: string; eventNumber: number }
  | { kind: 'broken' }
  | { kind: 'not-a-link' };

const decoder = new TextDecoder();

export function parseLink(data: Uint8Array): ParsedLink {
  const text = decoder.decode(data);
  const at = text.indexOf('@');
  const numberText = at < 0 ? text : text.slice(0, at);
  if (at < 0 || !/^-?\d+$/.test(numberText.trim())) return { kind: 'not-a-link' };
  const streamId = text.slice(at + 1);
  const eventNumber = Number(numberText.trim());
  if (streamId === '' || !Number.isSafeInteger(eventNumber) || eventNumber < -1) return { kind: 'broken' };
  return { kind: 'link', streamId, eventNumber };
}

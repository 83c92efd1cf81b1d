/** The event store on SQLite, as the rest of the event log uses it: its types, the store, users and links. */
export * from './types.ts';
export * from './store-contract.ts';
export { LINK_EVENT_TYPE, parseLink } from './links.ts';
export { metastreamOf, SystemEventTypes } from './metadata.ts';
export { compileLinearRegex } from './filter.ts';
export { forwardCursorAfter } from './positions.ts';
export { EventFlags, eventlogMigrations } from './migrations.ts';
export { SqliteEventStore, tuneEventLogConnection, type StoreLimits } from './sqlite-store.ts';
export type { SystemWriter } from './system-writer.ts';
export { DEFAULT_PASSWORD, EventLogUserError, SqliteEventLogUsers } from './users.ts';
export {
  MAX_TOKENS_PER_USER,
  SqliteEventLogTokens,
  type AccessTokenInfo,
  type EventLogTokens,
} from './access-tokens.ts';
export { SYSTEM_CALLER } from './access.ts';
export { principalOfAuthorization } from './authorization.ts';
export { isMetastream, originalStreamOf, parseStreamMetadata } from './metadata.ts';
export { position } from './positions.ts';
export { Column } from './statements.ts';
export { bytesToUuid, hexByteAt, PAIR_OFFSETS } from './uuid.ts';

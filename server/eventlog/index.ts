/**
 * The event-log subsystem's public face: storage (an EventStoreDB-compatible store on SQLite) and
 * the TCP protocol listeners. Everything else in Homeport uses only what is exported here.
 */
export * from './store/types.ts';
export { openEventLog, type EventLog, type OpenEventLogOptions } from './eventlog.ts';
export { startEventLogTcp, type EventLogTcpServer, type EventLogTcpOptions } from './tcp/server.ts';

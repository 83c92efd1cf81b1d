// The public face of server/eventlog/replication/testing/: what code outside the folder uses of it.
export { seedBulk } from './bulk.ts';
export { removeTempDirs, serveHomeport, startReplicator, tcpClient, tempDir } from './serve.ts';
export type { ServedHomeport } from './serve.ts';

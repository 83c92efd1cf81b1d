/** Homeport's server side: one start function for the CLI, the tests and the Electron main process. */
export { startHomeport, type Homeport, type Listener } from './start.ts';
export { resolveConfig, defaultDataDir, DEFAULT_PORTS, type HomeportConfig } from './config.ts';
export { DataDirLockedError } from './lock.ts';
export { HOMEPORT_VERSION } from './version.ts';

/** Homeport's server side: one start function for the CLI, the tests and the Electron main process. */
export { startHomeport, type Homeport } from './start.ts';
export { resolveConfig, DEFAULT_PORTS } from './config.ts';
export { DataDirLockedError } from './lock.ts';

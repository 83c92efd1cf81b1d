/** Homeport's server side: one start function for the CLI, the tests and the Electron main process. */
export { startHomeport, type Homeport } from './start.ts';
export { DataDirLockedError } from './lock.ts';

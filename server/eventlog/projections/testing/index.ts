// The public face of server/eventlog/projections/testing/: what code outside the folder uses of it.
export { tempDataDir } from './fixture.ts';

/** Test support of the HTTP server: a whole Homeport on loopback ports. */
export { useTestHomeport } from './homeport.ts';

/** Test support of the security subsystem that code outside tests (the Phanpy runner) may import. */
export { makeTestCertificate } from './certificates.ts';

/** Defences shared by the servers: credential throttling and the HTTP Host check. */
export { CredentialThrottle, FailureThrottle, type FailureThrottleOptions } from './failure-throttle.ts';
export { hostName, isAllowedHost, isLoopbackHost } from './host-check.ts';
export { LogThrottle } from './log-throttle.ts';
export { isPrivateAddress, publicOnlyLookup } from './private-address.ts';

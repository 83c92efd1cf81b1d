/** Shared defences: credential throttling, the HTTP Host check, remote fetches kept off private addresses. */
export { CredentialThrottle } from './failure-throttle.ts';
export { hostName, isAllowedHost, isLoopbackHost } from './host-check.ts';
export { linkLocalRefusal } from './link-local.ts';
export { LogThrottle } from './log-throttle.ts';
export {
  isPrivateAddress,
  PRIVATE_ADDRESS_CODE,
  pinnedLookup,
  privateLiteralRefusal,
  publicOnlyLookup,
} from './private-address.ts';
export { publicOnlyAgent } from './public-agent.ts';

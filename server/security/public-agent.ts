import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import { privateLiteralRefusal, publicOnlyLookup } from './private-address.ts';

/*
 * http(s) agents for requests the server makes on its own behalf to addresses other people chose (push
 * endpoints, links in posts). Every connection is checked where it is made, whatever URL or redirect led to
 * it: a name through publicOnlyLookup (the connection goes to the addresses that lookup checked), a literal
 * address (which Node connects to without any lookup) before the socket is opened. A refusal fails the
 * request with an error whose code is EPRIVATEADDRESS.
 */

type CreateConnection = (
  options: http.ClientRequestArgs,
  callback: (err: Error | null, socket?: net.Socket) => void,
) => net.Socket | undefined;

function guarded<A extends http.Agent>(agent: A): A {
  const create = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  (agent as unknown as { createConnection: CreateConnection }).createConnection = (options, callback) => {
    const refusal = privateLiteralRefusal(String(options.host ?? options.hostname ?? ''));
    if (refusal) {
      process.nextTick(callback, refusal);
      return undefined;
    }
    return create(options, callback);
  };
  return agent;
}

export interface AgentOptions {
  keepAlive?: boolean;
  /** Certificate authorities to trust instead of the default ones (https). */
  ca?: string;
}

/** An agent that connects only to public addresses (see above); `allowPrivateAddress` (tests only): a plain one. */
export function publicOnlyAgent(
  protocol: 'https:',
  options?: AgentOptions & { allowPrivateAddress?: boolean },
): https.Agent;
export function publicOnlyAgent(
  protocol: 'http:',
  options?: AgentOptions & { allowPrivateAddress?: boolean },
): http.Agent;
export function publicOnlyAgent(
  protocol: 'http:' | 'https:',
  options: AgentOptions & { allowPrivateAddress?: boolean } = {},
): http.Agent {
  const { allowPrivateAddress, ...agentOptions } = options;
  const settings = allowPrivateAddress ? agentOptions : { ...agentOptions, lookup: publicOnlyLookup };
  const agent =
    protocol === 'https:' ? sharedTlsContext(new https.Agent(settings), agentOptions) : new http.Agent(settings);
  return allowPrivateAddress ? agent : guarded(agent);
}

/**
 * One TLS context (trusted CAs) for every connection of the agent, built at its first connection: without it
 * tls.connect builds one per connection, a tenth of the CPU a posted link's preview-card fetch costs.
 */
function sharedTlsContext(agent: https.Agent, options: AgentOptions): https.Agent {
  let context: tls.SecureContext | null = null;
  const create = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  (agent as unknown as { createConnection: CreateConnection }).createConnection = (connection, callback) => {
    context ??= tls.createSecureContext(options.ca ? { ca: options.ca } : {});
    return create({ ...connection, secureContext: context } as http.ClientRequestArgs, callback);
  };
  return agent;
}

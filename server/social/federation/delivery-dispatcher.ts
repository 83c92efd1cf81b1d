import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent, buildConnector, Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { privateLiteralRefusal, publicOnlyLookup } from '../../security/index.ts';
import { REMOTE_FETCH_LIMITS } from './remote-fetch.ts';

/*
 * Fedify delivers activities with the global fetch (sendActivity, doubleKnock) and takes no fetch or agent to
 * use instead: no deadline, and nothing keeps an inbox URL on loopback or a private address from being posted
 * to. The global fetch asks undici's global dispatcher for every request, so one is installed that sends the
 * requests made while a federation queue message is handled (withGuardedFetch) through an agent that connects
 * only to public addresses (a name to the addresses its one lookup checked, a literal refused before
 * connecting) and gives up on a server that sends no headers, or stops sending its body, within the deadline
 * remote fetches have; every other request goes where it went before.
 */

const guarded = new AsyncLocalStorage<Dispatcher>();

/** Hands each request to the guarded agent inside withGuardedFetch, to the previous global dispatcher outside. */
class ScopedDispatcher extends Dispatcher {
  private readonly outside: Dispatcher;
  constructor(outside: Dispatcher) {
    super();
    this.outside = outside;
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return (guarded.getStore() ?? this.outside).dispatch(options, handler);
  }
}

let agent: Agent | null = null;

/** The guarded agent, made once; the global dispatcher becomes scoped the first time. */
function guardedAgent(): Agent {
  if (agent) return agent;
  const connect = buildConnector({ lookup: publicOnlyLookup, timeout: REMOTE_FETCH_LIMITS.timeoutMs });
  agent = new Agent({
    headersTimeout: REMOTE_FETCH_LIMITS.timeoutMs,
    bodyTimeout: REMOTE_FETCH_LIMITS.timeoutMs,
    connect(options, callback) {
      // A literal address is connected to without a lookup: judged here.
      const refusal = privateLiteralRefusal(options.hostname);
      if (refusal) return void process.nextTick(callback, refusal, null);
      connect(options, callback);
    },
  });
  setGlobalDispatcher(new ScopedDispatcher(getGlobalDispatcher()));
  return agent;
}

/** Runs `work` with the global fetch calls it makes going through the guarded agent. */
export function withGuardedFetch<T>(work: () => T): T {
  return guarded.run(guardedAgent(), work);
}

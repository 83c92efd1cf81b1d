/** An event log with its TCP listener and the subscription engines behind it. Not used by the server. */
import pino from 'pino';
import type { OpenEventLogOptions } from '../eventlog.ts';
import { startSubscriptions, type Subscriptions } from '../subscriptions/index.ts';
import { subscriptionTcpHandlers } from '../subscriptions/tcp-handlers.ts';
import type { SubscriptionTcpOptions } from '../subscriptions/tcp-registry.ts';
import type { EventLogTcpOptions } from '../tcp/server.ts';
import { startTcpFixture, type TcpFixture } from '../tcp/testing/raw-client.ts';

export interface SubscribedTcpFixture extends TcpFixture {
  subscriptions: Subscriptions;
}

/** startTcpFixture plus volatile and persistent subscriptions over TCP; close() stops all of it. */
export async function startSubscribedTcpFixture(
  options: {
    tcp?: Partial<EventLogTcpOptions>;
    eventLog?: Partial<OpenEventLogOptions>;
    subscriptions?: SubscriptionTcpOptions;
  } = {},
): Promise<SubscribedTcpFixture> {
  const fx = await startTcpFixture(options.tcp, options.eventLog);
  const subscriptions = startSubscriptions(fx.eventLog.store, { logger: pino({ level: 'silent' }) });
  fx.server.registerHandlers(subscriptionTcpHandlers(subscriptions, options.subscriptions));
  return {
    ...fx,
    subscriptions,
    async close() {
      await fx.server.close();
      await subscriptions.close();
      await fx.close();
    },
  };
}

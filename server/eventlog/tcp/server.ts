import type { AddressInfo } from 'node:net';
import type { Logger } from '../../logger.ts';
import type { EventLog } from '../eventlog.ts';

export interface EventLogTcpOptions {
  host: string;
  port: number;
  /** Secure listener port; null = no TLS listener. */
  tlsPort: number | null;
  /** Where the self-signed certificate is generated on first start (unless tlsCert/tlsKey are given). */
  dataDir: string;
  tlsCert?: string;
  tlsKey?: string;
  logger: Logger;
}

export interface EventLogTcpServer {
  tcp: AddressInfo;
  tls: AddressInfo | null;
  /** Stop accepting, let in-flight writes finish, close connections. */
  close(): Promise<void>;
}

// TODO(tcp helper): implement.
export async function startEventLogTcp(_eventLog: EventLog, _options: EventLogTcpOptions): Promise<EventLogTcpServer> {
  throw new Error('startEventLogTcp is not implemented yet');
}

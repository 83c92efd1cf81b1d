import type { ClientConnection } from './connection.ts';
import type { ConnectionInfo } from './connection-facts.ts';

/** The open connections of one server (TCP and TLS listeners together). */
export class ConnectionRegistry {
  private readonly connections = new Map<string, ClientConnection>();

  add(connection: ClientConnection): void {
    this.connections.set(connection.id, connection);
    connection.onClose(() => this.connections.delete(connection.id));
  }

  get(id: string): ClientConnection | undefined {
    return this.connections.get(id);
  }

  get size(): number {
    return this.connections.size;
  }

  all(): ClientConnection[] {
    return [...this.connections.values()];
  }

  /** Snapshots of every open connection, oldest first. */
  list(): ConnectionInfo[] {
    return this.all().map((c) => c.info());
  }
}

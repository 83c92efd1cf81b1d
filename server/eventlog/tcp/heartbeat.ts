/**
 * A connection's liveness check: after `intervalMs` without receiving anything, ask the peer for a heartbeat;
 * if nothing arrives within `timeoutMs` of asking, the peer is gone. Any bytes received count as a sign of life.
 */
export interface HeartbeatPeer {
  /** The connection is ending or ended: no more checks. */
  isClosed(): boolean;
  /** Sends a HeartbeatRequest. */
  requestHeartbeat(): void;
  /** Nothing arrived in time after a request. */
  heartbeatTimedOut(): void;
}

export class Heartbeat {
  private readonly peer: HeartbeatPeer;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private receivedSinceCheck = false;
  private awaiting = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(peer: HeartbeatPeer, limits: { heartbeatIntervalMs: number; heartbeatTimeoutMs: number }) {
    this.peer = peer;
    this.intervalMs = limits.heartbeatIntervalMs;
    this.timeoutMs = limits.heartbeatTimeoutMs;
    this.schedule(this.intervalMs);
  }

  /** Something arrived from the peer. */
  received(): void {
    this.receivedSinceCheck = true;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    if (this.peer.isClosed()) return;
    if (this.receivedSinceCheck) {
      this.receivedSinceCheck = false;
      this.awaiting = false;
      this.schedule(this.intervalMs);
    } else if (!this.awaiting) {
      this.awaiting = true;
      this.peer.requestHeartbeat();
      this.schedule(this.timeoutMs);
    } else {
      // Timers run before sockets are read: on a server that fell behind, the answer may be waiting unread. The
      // verdict comes after this turn's reads.
      setImmediate(() => this.judge());
    }
  }

  private judge(): void {
    if (this.peer.isClosed()) return;
    if (this.receivedSinceCheck) return this.check();
    this.peer.heartbeatTimedOut();
  }
}

import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { HOMEPORT_VERSION } from '../../version.ts';
import type { CallContext } from './call-support.ts';
import { unary } from './call-support.ts';
import type { GrpcListener, GrpcServiceModule } from './listener.ts';
import { uuidToWire } from './uuid.ts';

/**
 * What a client asks a node before anything else: ServerFeatures (the implemented methods, read from the
 * listener, and a KurrentDB version the clients' semver checks accept) and Gossip (one leader, this
 * node, so `+discover` connection strings work), plus the HTTP probes on the same port.
 */

/** The KurrentDB version whose v1 protocol Homeport serves (≥23.10: one `caught_up` per subscription). */
export const ADVERTISED_KURRENTDB_VERSION = '24.10.0';

export interface NodeIdentity {
  /** Host and port clients reach this listener at. */
  host: string;
  port: number;
}

function advertisedHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}

export function nodeServices(ctx: CallContext, listener: GrpcListener, node: NodeIdentity): GrpcServiceModule[] {
  const instanceId = randomUUID();
  const member = () => ({
    instance_id: uuidToWire(instanceId, true),
    // .NET ticks since 0001-01-01, as KurrentDB's gossip.
    time_stamp: (BigInt(Date.now()) * 10_000n + 621_355_968_000_000_000n).toString(),
    state: 'LEADER',
    is_alive: true,
    http_end_point: { address: advertisedHost(node.host), port: node.port },
  });
  const features: GrpcServiceModule = {
    service: 'event_store.client.server_features.ServerFeatures',
    handlers: {
      GetSupportedMethods: unary(ctx, () => ({
        event_store_server_version: ADVERTISED_KURRENTDB_VERSION,
        methods: listener.supportedMethods().map((m) => ({
          service_name: m.service.toLowerCase(),
          method_name: m.method.toLowerCase(),
          features: [...m.features],
        })),
      })) as grpc.handleUnaryCall<unknown, unknown>,
    },
    methods: { GetSupportedMethods: [] },
  };
  const gossip: GrpcServiceModule = {
    service: 'event_store.client.gossip.Gossip',
    handlers: { Read: unary(ctx, () => ({ members: [member()] })) as grpc.handleUnaryCall<unknown, unknown> },
    methods: { Read: [] },
  };

  const json = (body: unknown) => JSON.stringify(body);
  listener.addHttpRoute('GET', '/health/live', (_req, res) => {
    res.writeHead(204).end();
  });
  listener.addHttpRoute('GET', '/info', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      json({
        esVersion: ADVERTISED_KURRENTDB_VERSION,
        dbVersion: ADVERTISED_KURRENTDB_VERSION,
        state: 'leader',
        homeportVersion: HOMEPORT_VERSION,
        features: { projections: false, userManagement: true, atomPub: false },
        authentication: { type: listener.secure ? 'internal' : 'insecure' },
      }),
    );
  });
  listener.addHttpRoute('GET', '/gossip', (_req, res) => {
    const m = member();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      json({
        members: [
          {
            instanceId,
            timeStamp: new Date().toISOString(),
            state: 'Leader',
            isAlive: true,
            httpEndPointIp: m.http_end_point.address,
            httpEndPointPort: m.http_end_point.port,
          },
        ],
        serverIp: m.http_end_point.address,
        serverPort: m.http_end_point.port,
      }),
    );
  });
  return [features, gossip];
}

/** The client suite's files `run.ts` does not run (paths under the suite's `src/`), each with the reason. */
const CLUSTER = 'needs a cluster of several nodes (followers, leader changes, gossip between nodes)';
const KILLS = 'kills and restarts cluster nodes to test failover and reconnection';
const PROJECTIONS = 'projections (their own issue and suite)';

export const CLIENT_SUITE_LEFT_OUT: Record<string, string> = {
  'connection/Channel.test.ts': CLUSTER,
  'connection/cluster.test.ts': CLUSTER,
  'connection/connectionString/insecure-cluster.test.ts': CLUSTER,
  'connection/connectionString/secure-cluster.test.ts': CLUSTER,
  'connection/deadline/deadline-effects.test.ts': `${CLUSTER}; and projections`,
  'connection/not-leader.test.ts': CLUSTER,
  'connection/reconnect/NotLeaderError.test.ts': CLUSTER,
  'connection/reconnect/UnavailableError.test.ts': KILLS,
  'connection/reconnect/all-nodes-down.test.ts': KILLS,
  'connection/reconnect/leader-failover.test.ts': KILLS,
  'connection/reconnect/mid-stream.test.ts': KILLS,
  'connection/reconnect/no-reconnection.test.ts': `${CLUSTER}; and 1 ms commit timeouts Homeport has no option for`,
  'extra/http.test.ts': 'the AtomPub HTTP API',
  'opentelemetry/instrumentation.test.ts': 'the @kurrent/opentelemetry workspace package and an OTLP collector',
  'plugins/client-certificates.test.ts': "X.509 user certificates (KurrentDB's commercial plugin)",
  'samples/user-certificates.ts': "X.509 user certificates (KurrentDB's commercial plugin)",
  'samples/opentelemetry.ts': 'the @kurrent/opentelemetry workspace package and an OTLP collector',
  'samples/projection-management.ts': PROJECTIONS,
  'projections/createProjection.test.ts': PROJECTIONS,
  'projections/deleteProjection.test.ts': PROJECTIONS,
  'projections/disableProjection.test.ts': PROJECTIONS,
  'projections/enableProjection.test.ts': PROJECTIONS,
  'projections/getProjectionResult.test.ts': PROJECTIONS,
  'projections/getProjectionState.test.ts': PROJECTIONS,
  'projections/getProjectionStatus.test.ts': PROJECTIONS,
  'projections/listProjections.test.ts': PROJECTIONS,
  'projections/resetProjection.test.ts': PROJECTIONS,
  'projections/restartSubsystem.test.ts': PROJECTIONS,
  'projections/updateProjection.test.ts': PROJECTIONS,
};

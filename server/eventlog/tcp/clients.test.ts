import { clientScenarios } from './testing/client-suite.ts';

// The same scenarios through both published generations of node-eventstore-client.
clientScenarios({
  label: 'node-eventstore-client 23.10.1',
  load: async () => (await import('node-eventstore-client')).default,
});
// 0.2.x decodes replies with proto2 `required` checks: any reply missing a required field fails here.
clientScenarios({
  label: 'node-eventstore-client 0.2.19',
  load: async () => (await import('node-eventstore-client-0.2')).default,
});

import { describe, expect, it } from 'vitest';
import { connectionStrings } from './server/connection-strings.ts';

describe('connection strings in the Server view', () => {
  const grpc = {
    name: 'eventlog-grpc',
    protocol: 'grpc+tls',
    address: '127.0.0.1:2113',
    url: 'kurrentdb://127.0.0.1:2113?tlsCAFile=/data/tls/eventlog-cert.pem',
  };
  it('gives the gRPC listener a kurrentdb:// string with the signed-in name and never a password', () => {
    const [c] = connectionStrings(grpc, 'ada');
    expect(c.text).toBe('kurrentdb://ada:<password>@127.0.0.1:2113?tlsCAFile=/data/tls/eventlog-cert.pem');
    expect(connectionStrings({ ...grpc, url: 'kurrentdb://127.0.0.1:2113?tls=false' }, 'ada')[0].text).toBe(
      'kurrentdb://127.0.0.1:2113?tls=false',
    );
  });
});

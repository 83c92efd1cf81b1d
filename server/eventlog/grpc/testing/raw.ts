import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { serviceClient } from '../protos.ts';
import type { GrpcTestServer } from './homeport.ts';

/** A grpc-js client on Homeport's .proto files, for calls the official Node client never makes. */
type Credentials = { username: string; password: string } | null;
const ADMIN = { username: 'admin', password: 'changeit' };

export function rawClient(
  server: GrpcTestServer,
  service: string,
  credentials: Credentials = ADMIN,
  options: grpc.ClientOptions = {},
): grpc.Client {
  const Ctor = serviceClient(service);
  return new Ctor(`127.0.0.1:${server.port}`, channelCredentials(server, credentials), options);
}

/** TLS trusting the server's certificate (or cleartext), with Basic credentials on every call. */
export function channelCredentials(server: GrpcTestServer, credentials: Credentials = ADMIN): grpc.ChannelCredentials {
  const caFile = server.homeport.grpc!.caFile;
  let channel = caFile ? grpc.credentials.createSsl(fs.readFileSync(caFile)) : grpc.credentials.createInsecure();
  if (credentials && caFile) {
    const header = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
    channel = grpc.credentials.combineChannelCredentials(
      channel,
      grpc.credentials.createFromMetadataGenerator((_params, callback) => {
        const metadata = new grpc.Metadata();
        metadata.set('authorization', header);
        callback(null, metadata);
      }),
    );
  }
  return channel;
}

type Method = (...args: unknown[]) => grpc.ClientReadableStream<unknown> & grpc.ClientUnaryCall;

export function unaryCall<T>(client: grpc.Client, method: string, request: unknown): Promise<T> {
  return new Promise((resolve, reject) =>
    (client as unknown as Record<string, Method>)[method](request, (err: Error | null, res: T) =>
      err ? reject(err) : resolve(res),
    ),
  );
}

/** All messages of a server stream; rejects with the status error. */
export function streamCall<T>(client: grpc.Client, method: string, request: unknown): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = [];
    const call = (client as unknown as Record<string, Method>)[method](request);
    call.on('data', (m: T) => out.push(m));
    call.on('error', reject);
    call.on('end', () => resolve(out));
  });
}

/** A raw Streams.Read subscription to one stream from its start (string ids). */
export function subscribeRaw<T>(client: grpc.Client, stream: string): grpc.ClientReadableStream<T> {
  return (client as unknown as { Read(request: unknown): grpc.ClientReadableStream<T> }).Read({
    options: {
      stream: { stream_identifier: { stream_name: Buffer.from(stream) }, start: {} },
      read_direction: 'FORWARDS',
      subscription: {},
      no_filter: {},
      uuid_option: { string: {} },
    },
  });
}

/*
 * What to paste into a client for each listener, for the event-log account signed in to the UI. The password
 * is never shown: the snippets read it from the HOMEPORT_PASSWORD environment variable, and the plain
 * connection strings carry a `<password>` placeholder to fill in.
 */

export interface Listener {
  name: string;
  protocol: string;
  address: string;
  url: string;
}

export interface ConnectionString {
  label: string;
  text: string;
}

export const PASSWORD_PLACEHOLDER = '<password>';

/** The account the strings name: the event-log user signed in, else the built-in admin. */
export function connectionUser(user: { name: string; via: string } | null): string {
  return user?.via === 'eventlog-admin' ? user.name : 'admin';
}

const quoted = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

export function connectionStrings(listener: Listener, user: string): ConnectionString[] {
  const credentials = `new EventStore.UserCredentials(${quoted(user)}, process.env.HOMEPORT_PASSWORD)`;
  if (listener.name === 'eventlog-tcp' || listener.name === 'eventlog-tls') {
    const tls = listener.name === 'eventlog-tls';
    return [
      {
        label: 'node-eventstore-client',
        text: `EventStore.createConnection({ ${tls ? 'useSslConnection: true, validateServer: false, ' : ''}defaultUserCredentials: ${credentials} }, ${quoted(listener.url)})`,
      },
      {
        label: '.NET EventStore.ClientAPI',
        text: `ConnectTo=${listener.url};DefaultUserCredentials=${user}:${PASSWORD_PLACEHOLDER};UseSslConnection=${tls ? 'true;ValidateServer=false' : 'false'}`,
      },
    ];
  }
  if (listener.name === 'eventlog-grpc') {
    // kurrentdb://host:port?… becomes kurrentdb://user:<password>@host:port?…
    // In cleartext (--grpc-insecure, tls=false) the server takes no credentials.
    const withUser = listener.url.includes('tls=false')
      ? listener.url
      : listener.url.replace(/^([a-z+]+:\/\/)/, `$1${encodeURIComponent(user)}:${PASSWORD_PLACEHOLDER}@`);
    return [{ label: 'KurrentDB and EventStoreDB gRPC clients', text: withUser }];
  }
  return [{ label: 'Mastodon apps (server address)', text: listener.url }];
}

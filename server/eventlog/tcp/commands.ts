/** TcpCommand codes of the legacy EventStoreDB TCP protocol (the byte after the length prefix). */
export const TcpCommand = {
  HeartbeatRequestCommand: 0x01,
  HeartbeatResponseCommand: 0x02,
  Ping: 0x03,
  Pong: 0x04,

  WriteEvents: 0x82,
  WriteEventsCompleted: 0x83,
  TransactionStart: 0x84,
  TransactionStartCompleted: 0x85,
  TransactionWrite: 0x86,
  TransactionWriteCompleted: 0x87,
  TransactionCommit: 0x88,
  TransactionCommitCompleted: 0x89,
  DeleteStream: 0x8a,
  DeleteStreamCompleted: 0x8b,

  ReadEvent: 0xb0,
  ReadEventCompleted: 0xb1,
  ReadStreamEventsForward: 0xb2,
  ReadStreamEventsForwardCompleted: 0xb3,
  ReadStreamEventsBackward: 0xb4,
  ReadStreamEventsBackwardCompleted: 0xb5,
  ReadAllEventsForward: 0xb6,
  ReadAllEventsForwardCompleted: 0xb7,
  ReadAllEventsBackward: 0xb8,
  ReadAllEventsBackwardCompleted: 0xb9,
  FilteredReadAllEventsForward: 0xba,
  FilteredReadAllEventsForwardCompleted: 0xbb,
  FilteredReadAllEventsBackward: 0xbc,
  // 0xBD is not used by the protocol.
  FilteredReadAllEventsBackwardCompleted: 0xbe,

  SubscribeToStream: 0xc0,
  SubscriptionConfirmation: 0xc1,
  StreamEventAppeared: 0xc2,
  UnsubscribeFromStream: 0xc3,
  SubscriptionDropped: 0xc4,
  ConnectToPersistentSubscription: 0xc5,
  PersistentSubscriptionConfirmation: 0xc6,
  PersistentSubscriptionStreamEventAppeared: 0xc7,
  CreatePersistentSubscription: 0xc8,
  CreatePersistentSubscriptionCompleted: 0xc9,
  DeletePersistentSubscription: 0xca,
  DeletePersistentSubscriptionCompleted: 0xcb,
  PersistentSubscriptionAckEvents: 0xcc,
  PersistentSubscriptionNakEvents: 0xcd,
  UpdatePersistentSubscription: 0xce,
  UpdatePersistentSubscriptionCompleted: 0xcf,

  ScavengeDatabase: 0xd0,
  ScavengeDatabaseResponse: 0xd1,
  FilteredSubscribeToStream: 0xd2,
  CheckpointReached: 0xd3,

  BadRequest: 0xf0,
  NotHandled: 0xf1,
  Authenticate: 0xf2,
  Authenticated: 0xf3,
  NotAuthenticated: 0xf4,
  IdentifyClient: 0xf5,
  ClientIdentified: 0xf6,
} as const;

type TcpCommandCode = (typeof TcpCommand)[keyof typeof TcpCommand];

const NAMES = new Map<number, string>(Object.entries(TcpCommand).map(([name, code]) => [code, name]));

/** `WriteEvents (0x82)` style label for logs and error texts. */
export function commandName(code: number): string {
  const hex = `0x${code.toString(16).toUpperCase().padStart(2, '0')}`;
  const name = NAMES.get(code);
  return name ? `${name} (${hex})` : `unknown command ${hex}`;
}

export const TcpFlags = {
  None: 0x00,
  Authenticated: 0x01,
  /** Internal replication only; refused on the client interface. */
  TrustedWrite: 0x02,
} as const;

import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { messageType, type MessageName } from './messages.ts';

/**
 * The proto file against the protocol's message catalogue: every message, field number, type and
 * presence (req/opt/rep), transcribed from the seed's tables.
 */
const CATALOGUE: Record<string, string> = {
  NewEvent:
    'event_id 1 bytes req; event_type 2 string req; data_content_type 3 int32 req; metadata_content_type 4 int32 req; data 5 bytes req; metadata 6 bytes opt',
  EventRecord:
    'event_stream_id 1 string req; event_number 2 int64 req; event_id 3 bytes req; event_type 4 string req; data_content_type 5 int32 req; metadata_content_type 6 int32 req; data 7 bytes req; metadata 8 bytes opt; created 9 int64 opt; created_epoch 10 int64 opt',
  ResolvedIndexedEvent: 'event 1 EventRecord opt; link 2 EventRecord opt',
  ResolvedEvent:
    'event 1 EventRecord opt; link 2 EventRecord opt; commit_position 3 int64 req; prepare_position 4 int64 req',
  Filter: 'context 1 FilterContext req; type 2 FilterType req; data 3 string rep',
  WriteEvents:
    'event_stream_id 1 string req; expected_version 2 int64 req; events 3 NewEvent rep; require_leader 4 bool req',
  WriteEventsCompleted:
    'result 1 OperationResult req; message 2 string opt; first_event_number 3 int64 req; last_event_number 4 int64 req; prepare_position 5 int64 opt; commit_position 6 int64 opt; current_version 7 int64 opt',
  DeleteStream:
    'event_stream_id 1 string req; expected_version 2 int64 req; require_leader 3 bool req; hard_delete 4 bool opt',
  DeleteStreamCompleted:
    'result 1 OperationResult req; message 2 string opt; prepare_position 3 int64 opt; commit_position 4 int64 opt; current_version 5 int64 opt',
  TransactionStart: 'event_stream_id 1 string req; expected_version 2 int64 req; require_leader 3 bool req',
  TransactionStartCompleted: 'transaction_id 1 int64 req; result 2 OperationResult req; message 3 string opt',
  TransactionWrite: 'transaction_id 1 int64 req; events 2 NewEvent rep; require_leader 3 bool req',
  TransactionWriteCompleted: 'transaction_id 1 int64 req; result 2 OperationResult req; message 3 string opt',
  TransactionCommit: 'transaction_id 1 int64 req; require_leader 2 bool req',
  TransactionCommitCompleted:
    'transaction_id 1 int64 req; result 2 OperationResult req; message 3 string opt; first_event_number 4 int64 req; last_event_number 5 int64 req; prepare_position 6 int64 opt; commit_position 7 int64 opt',
  ReadEvent:
    'event_stream_id 1 string req; event_number 2 int64 req; resolve_link_tos 3 bool req; require_leader 4 bool req',
  ReadEventCompleted: 'result 1 ReadEventResult req; event 2 ResolvedIndexedEvent req; error 3 string opt',
  ReadStreamEvents:
    'event_stream_id 1 string req; from_event_number 2 int64 req; max_count 3 int32 req; resolve_link_tos 4 bool req; require_leader 5 bool req',
  ReadStreamEventsCompleted:
    'events 1 ResolvedIndexedEvent rep; result 2 ReadStreamResult req; next_event_number 3 int64 req; last_event_number 4 int64 req; is_end_of_stream 5 bool req; last_commit_position 6 int64 req; error 7 string opt',
  ReadAllEvents:
    'commit_position 1 int64 req; prepare_position 2 int64 req; max_count 3 int32 req; resolve_link_tos 4 bool req; require_leader 5 bool req',
  ReadAllEventsCompleted:
    'commit_position 1 int64 req; prepare_position 2 int64 req; events 3 ResolvedEvent rep; next_commit_position 4 int64 req; next_prepare_position 5 int64 req; result 6 ReadAllResult opt =Success; error 7 string opt',
  FilteredReadAllEvents:
    'commit_position 1 int64 req; prepare_position 2 int64 req; max_count 3 int32 req; max_search_window 4 int32 opt; resolve_link_tos 5 bool req; require_leader 6 bool req; filter 7 Filter req',
  FilteredReadAllEventsCompleted:
    'commit_position 1 int64 req; prepare_position 2 int64 req; events 3 ResolvedEvent rep; next_commit_position 4 int64 req; next_prepare_position 5 int64 req; is_end_of_stream 6 bool req; result 7 FilteredReadAllResult opt =Success; error 8 string opt',
  CreatePersistentSubscription: PERSISTENT_SETTINGS(),
  UpdatePersistentSubscription: PERSISTENT_SETTINGS(),
  DeletePersistentSubscription: 'subscription_group_name 1 string req; event_stream_id 2 string req',
  CreatePersistentSubscriptionCompleted:
    'result 1 CreatePersistentSubscriptionResult req =Success; reason 2 string opt',
  UpdatePersistentSubscriptionCompleted:
    'result 1 UpdatePersistentSubscriptionResult req =Success; reason 2 string opt',
  DeletePersistentSubscriptionCompleted:
    'result 1 DeletePersistentSubscriptionResult req =Success; reason 2 string opt',
  ConnectToPersistentSubscription:
    'subscription_id 1 string req; event_stream_id 2 string req; allowed_in_flight_messages 3 int32 req',
  PersistentSubscriptionAckEvents: 'subscription_id 1 string req; processed_event_ids 2 bytes rep',
  PersistentSubscriptionNakEvents:
    'subscription_id 1 string req; processed_event_ids 2 bytes rep; message 3 string opt; action 4 NakAction req =Unknown',
  PersistentSubscriptionConfirmation:
    'last_commit_position 1 int64 req; subscription_id 2 string req; last_event_number 3 int64 opt',
  PersistentSubscriptionStreamEventAppeared: 'event 1 ResolvedIndexedEvent req; retryCount 2 int32 opt',
  SubscribeToStream: 'event_stream_id 1 string req; resolve_link_tos 2 bool req',
  FilteredSubscribeToStream:
    'event_stream_id 1 string req; resolve_link_tos 2 bool req; filter 3 Filter req; checkpoint_interval 4 int32 req',
  CheckpointReached: 'commit_position 1 int64 req; prepare_position 2 int64 req',
  SubscriptionConfirmation: 'last_commit_position 1 int64 req; last_event_number 2 int64 opt',
  StreamEventAppeared: 'event 1 ResolvedEvent req',
  UnsubscribeFromStream: '',
  SubscriptionDropped: 'reason 1 SubscriptionDropReason opt =Unsubscribed',
  NotHandled: 'reason 1 NotHandledReason req; additional_info 2 bytes opt',
  'NotHandled.LeaderInfo':
    'external_tcp_address 1 string opt; external_tcp_port 2 int32 opt; http_address 3 string req; http_port 4 int32 req; external_secure_tcp_address 5 string opt; external_secure_tcp_port 6 int32 opt',
  ScavengeDatabase: '',
  ScavengeDatabaseResponse: 'result 1 ScavengeResult req; scavengeId 2 string opt',
  IdentifyClient: 'version 1 int32 req; connection_name 2 string opt',
  ClientIdentified: '',
};

function PERSISTENT_SETTINGS(): string {
  return [
    'subscription_group_name 1 string req',
    'event_stream_id 2 string req',
    'resolve_link_tos 3 bool req',
    'start_from 4 int64 req',
    'message_timeout_milliseconds 5 int32 req',
    'record_statistics 6 bool req',
    'live_buffer_size 7 int32 req',
    'read_batch_size 8 int32 req',
    'buffer_size 9 int32 req',
    'max_retry_count 10 int32 req',
    'prefer_round_robin 11 bool req',
    'checkpoint_after_time 12 int32 req',
    'checkpoint_max_count 13 int32 req',
    'checkpoint_min_count 14 int32 req',
    'subscriber_max_count 15 int32 req',
    'named_consumer_strategy 16 string opt',
  ].join('; ');
}

const ENUMS: Record<string, string> = {
  OperationResult:
    'Success=0 PrepareTimeout=1 CommitTimeout=2 ForwardTimeout=3 WrongExpectedVersion=4 StreamDeleted=5 InvalidTransaction=6 AccessDenied=7',
  'ReadEventCompleted.ReadEventResult': 'Success=0 NotFound=1 NoStream=2 StreamDeleted=3 Error=4 AccessDenied=5',
  'ReadStreamEventsCompleted.ReadStreamResult':
    'Success=0 NoStream=1 StreamDeleted=2 NotModified=3 Error=4 AccessDenied=5',
  'ReadAllEventsCompleted.ReadAllResult': 'Success=0 NotModified=1 Error=2 AccessDenied=3',
  'FilteredReadAllEventsCompleted.FilteredReadAllResult': 'Success=0 NotModified=1 Error=2 AccessDenied=3',
  'Filter.FilterContext': 'StreamId=0 EventType=1',
  'Filter.FilterType': 'Regex=0 Prefix=1',
  'UpdatePersistentSubscriptionCompleted.UpdatePersistentSubscriptionResult':
    'Success=0 DoesNotExist=1 Fail=2 AccessDenied=3',
  'CreatePersistentSubscriptionCompleted.CreatePersistentSubscriptionResult':
    'Success=0 AlreadyExists=1 Fail=2 AccessDenied=3',
  'DeletePersistentSubscriptionCompleted.DeletePersistentSubscriptionResult':
    'Success=0 DoesNotExist=1 Fail=2 AccessDenied=3',
  'PersistentSubscriptionNakEvents.NakAction': 'Unknown=0 Park=1 Retry=2 Skip=3 Stop=4',
  'SubscriptionDropped.SubscriptionDropReason':
    'Unsubscribed=0 AccessDenied=1 NotFound=2 PersistentSubscriptionDeleted=3 SubscriberMaxCountReached=4',
  'NotHandled.NotHandledReason': 'NotReady=0 TooBusy=1 NotLeader=2 IsReadOnly=3',
  'ScavengeDatabaseResponse.ScavengeResult': 'Started=0 InProgress=1 Unauthorized=2',
};

describe('proto/ClientMessageDtos.proto', () => {
  it('is proto2 in package EventStore.Client.Messages', () => {
    expect(messageType('WriteEvents').fullName).toBe('.EventStore.Client.Messages.WriteEvents');
  });

  it.each(Object.entries(CATALOGUE))('%s has exactly the catalogued fields', (name, spec) => {
    const type = messageType(name as MessageName);
    const expected = spec ? spec.split('; ').map((f) => f.split(' ')) : [];
    expect(type.fieldsArray.length).toBe(expected.length);
    for (const [fieldName, number, fieldType, presence, dflt] of expected) {
      const field = type.fields[protobuf.util.camelCase(fieldName)];
      expect(field, `${name}.${fieldName}`).toBeDefined();
      expect(field.id, `${name}.${fieldName} number`).toBe(Number(number));
      expect(field.type, `${name}.${fieldName} type`).toBe(fieldType);
      expect(field.required, `${name}.${fieldName} required`).toBe(presence === 'req');
      expect(field.repeated, `${name}.${fieldName} repeated`).toBe(presence === 'rep');
      if (dflt) expect(field.options?.default, `${name}.${fieldName} default`).toBe(dflt.slice(1));
    }
  });

  it.each(Object.entries(ENUMS))('enum %s has the catalogued values', (name, spec) => {
    const e = messageType('WriteEvents').root.lookupEnum(`EventStore.Client.Messages.${name}`);
    expect(
      Object.entries(e.values)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ).toBe(spec);
  });
});

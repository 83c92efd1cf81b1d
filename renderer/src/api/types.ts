/** The UI API's JSON shapes, taken from the server's own route modules so both sides agree. */
export type {
  UiEvent,
  UiPayload,
  UiGroupSummary,
  UiGroupDetail,
  UiGroupSettings,
  UiVolatileSubscription,
  UiConnectionSource,
} from '../../../server/eventlog/ui/contract.ts';
export type { StreamPage } from '../../../server/eventlog/ui/contract.ts';
export type { AllPage } from '../../../server/eventlog/ui/contract.ts';
export type { UiStreamSummary } from '../../../server/eventlog/ui/contract.ts';
export type { UiScavengeStatus } from '../../../server/eventlog/ui/contract.ts';
export type { UiReplication } from '../../../server/eventlog/ui/contract.ts';
export type {
  UiProjectionSummary,
  UiProjectionDetail,
  UiProjectionState,
  UiProjectionConfig,
} from '../../../server/eventlog/ui/contract.ts';
import type { StreamMetadata, Position } from '../../../server/eventlog/ui/contract.ts';
export type { StreamMetadata };

export interface MetadataResponse {
  streamId: string;
  /** The document as last written to `$$stream`, null when there is none. */
  metadata: Record<string, unknown> | null;
  invalid?: string;
  /** Event number of that document in `$$stream` (-1: none), for a safe edit. */
  version: number;
  effective: StreamMetadata;
}

export interface EventDetailResponse {
  event: import('../../../server/eventlog/ui/contract.ts').UiEvent;
  previous: number | null;
  next: number | null;
}

export interface EventLogUserView {
  name: string;
  fullName: string;
  groups: string[];
  disabled: boolean;
  createdAt: number;
  /** Still has the public default password `changeit` (checked for the accounts a new install creates). */
  defaultPassword?: boolean;
}

/** A bearer token of an event-log user, without its secret. */
export interface AccessTokenView {
  id: string;
  user: string;
  name: string;
  createdAt: number;
  /** null: until revoked. */
  expiresAt: number | null;
}
